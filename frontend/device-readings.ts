// Reads the backend's device list (GET /api/devices): the first page of the fleet, how many devices there are,
// and the devices that need attention first; picks the latest reading and fetches the first few devices' recent
// readings. A missing list is not an error page, and one device's failure is that device's alone.
import { asObject } from '../lib/json-object.ts';
import { probe } from './probe.ts';
import { byReceipt, receivedAtOf } from './receipt-order.ts';
import { readRecent } from './recent-readings.ts';
import { endpointUrl } from '../lib/endpoint-url.ts';
import { servedListMaxBytes, shortenValue } from './reading-value.ts';
import type { AttentionList, DeviceReading, FleetDevice, ReadingsStatus } from './status-document.ts';

/** Devices listed per refresh: the backend's default page, whatever the size of the fleet. */
export const FLEET_PAGE = 100;

/**
 * The largest legal page of devices as the backend serves it (each value up to 8 KiB, JSON-escaped up to six times
 * that): a backend that answers without end still costs the frontend no more than this, and a legal one always fits.
 * What the frontend keeps of it is far less: each value cut to SHOWN_VALUE_MAX characters.
 */
export const DEVICE_LIST_MAX_BYTES = servedListMaxBytes(FLEET_PAGE);

/** Devices asked for by need of attention (largest backlog, then longest silence). */
export const ATTENTION_LIMIT = 5;

/** Devices whose recent readings are asked for, in the backend's order: bounds the requests per refresh. */
export const CHARTED_DEVICES = 8;

/** `headers` go with every request to the backend: its read token, outside local mode (BACKEND_READ_TOKEN). */
export async function readDevices(
  backendUrl: string,
  timeoutMs: number,
  headers: Record<string, string> = {},
): Promise<ReadingsStatus> {
  // Both in parallel, each bounded by the timeout; the charts then cost at most one more timeout.
  const [page, attention] = await Promise.all([
    readList(backendUrl, `limit=${FLEET_PAGE}`, timeoutMs, headers),
    readList(backendUrl, `attention=${ATTENTION_LIMIT}`, timeoutMs, headers),
  ]);
  if (typeof page === 'string') {
    const none: AttentionList = { available: false, problem: null, devices: [] };
    return { available: false, problem: `device list: ${page}`, total: 0, devices: [], attention: none, latest: null };
  }
  const { devices, total } = page;
  await Promise.all(
    devices.slice(0, CHARTED_DEVICES).map(async (device) => {
      device.recent = await readRecent(backendUrl, device.deviceId, timeoutMs, headers);
    }),
  );
  // Received last, as the backend orders each device's own: no device's clock makes its reading the latest.
  let latest: ReadingsStatus['latest'] = null;
  for (const { deviceId, connected, lastReading } of devices) {
    if (lastReading && (!latest || byReceipt(lastReading, latest) > 0))
      latest = { deviceId, connected, ...lastReading };
  }
  return {
    available: true,
    problem: null,
    total,
    devices,
    attention:
      typeof attention === 'string'
        ? { available: false, problem: `attention list: ${attention}`, devices: [] }
        : { available: true, problem: null, devices: attention.devices.slice(0, ATTENTION_LIMIT) },
    latest,
  };
}

/** One GET /api/devices with `query`: its devices and total, or why it could not be read. */
async function readList(
  backendUrl: string,
  query: string,
  timeoutMs: number,
  headers: Record<string, string>,
): Promise<{ devices: FleetDevice[]; total: number } | string> {
  // The query is set apart: endpointUrl joins paths, and would escape a `?` inside one.
  const url = new URL(endpointUrl(backendUrl, '/api/devices'));
  url.search = query;
  const result = await probe(url.href, timeoutMs, { maxBytes: DEVICE_LIST_MAX_BYTES, headers });
  if (!result.reached) return result.error;
  const body = asObject(result.body);
  if (result.status !== 200 || !Array.isArray(body?.devices)) {
    return `backend answered HTTP ${result.status} without a device list`;
  }
  const devices = body.devices.map(toDevice).filter((d): d is FleetDevice => d !== undefined);
  // A backend that does not say how many it knows (or says fewer than it listed): count what it listed.
  const total = count(body.total) ?? 0;
  return { devices, total: Math.max(total, devices.length) };
}

function toDevice(value: unknown): FleetDevice | undefined {
  const device = asObject(value);
  if (typeof device?.deviceId !== 'string') return undefined;
  const seen = device.lastSeenAt;
  return {
    deviceId: device.deviceId,
    connected: device.connected === true,
    lastReading: toReading(device.lastReading),
    readingsStored: count(device.readingsStored),
    readingsLost: count(device.readingsLost),
    backlog: count(device.backlog),
    lastSeenAt: typeof seen === 'string' && !Number.isNaN(Date.parse(seen)) ? seen : null,
    recent: null,
  };
}

/** A whole, non-negative number, or null. */
function count(value: unknown): number | null {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : null;
}

function toReading(value: unknown): DeviceReading | null {
  const reading = asObject(value);
  if (!reading || !Number.isSafeInteger(reading.seq) || typeof reading.timestamp !== 'string') return null;
  if (Number.isNaN(Date.parse(reading.timestamp)) || typeof reading.value !== 'string') return null;
  const timestamp = reading.timestamp;
  return {
    seq: reading.seq as number,
    timestamp,
    receivedAt: receivedAtOf({ ...reading, timestamp }),
    ...shortenValue(reading.value),
  };
}
