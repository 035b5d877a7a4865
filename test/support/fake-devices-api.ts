// Test support: the backend's GET /api/devices as its contract states it (a page by deviceId with `limit`
// and `after`, the total, or with `attention` the devices needing it first), answered from a list for fake backends.
import type { DeviceView } from '../../backend/readings/device-summary.ts';

/** A device as the fake lists it: the backend's own view type. */
export type FakeFleetDevice = DeviceView;

type Answer = { status: number; body: unknown };

/** A route answering GET /api/devices from `devices` (a FakeRoute for startFakeService). */
export function devicesApi(devices: FakeFleetDevice[]): (query: URLSearchParams) => Answer {
  const sorted = [...devices].sort((a, b) => (a.deviceId < b.deviceId ? -1 : a.deviceId > b.deviceId ? 1 : 0));
  return function answerDevices(query) {
    const total = sorted.length;
    if (query.has('attention')) {
      const wanted = whole(query.get('attention'), 1, 100);
      if (wanted === undefined) return refuse('attention must be a whole number from 1 to 100');
      return { status: 200, body: { total, devices: byAttention(sorted).slice(0, wanted), next: null } };
    }
    const limit = query.has('limit') ? whole(query.get('limit'), 1, 1000) : 100;
    if (limit === undefined) return refuse('limit must be a whole number from 1 to 1000');
    const after = query.get('after');
    const from = after === null ? 0 : sorted.findIndex((d) => d.deviceId > after);
    const page = from < 0 ? [] : sorted.slice(from, from + limit);
    const more = from >= 0 && from + limit < total;
    return { status: 200, body: { total, devices: page, next: more ? page.at(-1)!.deviceId : null } };
  };
}

/** Connected devices with the largest backlog first, then the longest silent (never heard from first). */
function byAttention(devices: FakeFleetDevice[]): FakeFleetDevice[] {
  const held = devices.filter((d) => d.connected && (d.backlog ?? 0) > 0).sort((a, b) => b.backlog! - a.backlog!);
  const heard = (d: FakeFleetDevice) => Date.parse(d.lastSeenAt ?? d.lastReading?.timestamp ?? '') || 0;
  const rest = devices.filter((d) => !held.includes(d)).sort((a, b) => heard(a) - heard(b));
  return [...held, ...rest];
}

/** `count` devices named `<prefix>-00001`…, connected, heard from `heardAt`, nothing held; change what a test needs. */
export function fakeFleet(count: number, heardAt: Date, prefix = 'unit'): FakeFleetDevice[] {
  return Array.from({ length: count }, (_, i) => ({
    deviceId: `${prefix}-${String(i + 1).padStart(5, '0')}`,
    session: 'session-1',
    connected: true,
    lastReading: {
      seq: 10,
      timestamp: heardAt.toISOString(),
      value: `temperature_c=${(20 + (i % 7) / 4).toFixed(2)}`,
      receivedAt: heardAt.toISOString(),
    },
    readingsStored: 10,
    readingsLost: 0,
    backlog: 0,
    lastSeenAt: heardAt.toISOString(),
  }));
}

function whole(text: string | null, min: number, max: number): number | undefined {
  if (text === null || !/^\d{1,4}$/.test(text)) return undefined;
  const value = Number(text);
  return value >= min && value <= max ? value : undefined;
}

const refuse = (error: string): Answer => ({ status: 400, body: { error } });
