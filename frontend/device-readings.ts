// Reads the backend's device list (GET /api/devices), picks the latest reading and fetches the first few devices'
// recent readings; a missing list is not an error page, and one device's failure is that device's alone.
import { asObject } from './as-object.ts';
import { probe } from './probe.ts';
import { readRecent } from './recent-readings.ts';
import { endpointUrl } from '../lib/endpoint-url.ts';
import type { DeviceReading, DeviceSummary, ReadingsStatus } from './status-document.ts';

/**
 * The list grows with every device the backend has seen, and a reading may be up to 8 KiB: thousands of devices
 * fit, while a backend that answers without end still costs the frontend no more than this.
 */
export const DEVICE_LIST_MAX_BYTES = 4 * 1024 * 1024;

/** Devices whose recent readings are asked for, in the backend's order: bounds the requests per refresh. */
export const CHARTED_DEVICES = 8;

export async function readDevices(backendUrl: string, timeoutMs: number): Promise<ReadingsStatus> {
  const url = endpointUrl(backendUrl, '/api/devices');
  const result = await probe(url, timeoutMs, { maxBytes: DEVICE_LIST_MAX_BYTES });
  const unavailable = (problem: string): ReadingsStatus => ({ available: false, problem, devices: [], latest: null });
  if (!result.reached) return unavailable(`device list: ${result.error}`);
  const list = asObject(result.body)?.devices;
  if (result.status !== 200 || !Array.isArray(list)) {
    return unavailable(`device list: backend answered HTTP ${result.status} without a device list`);
  }
  const devices = list.map(toDevice).filter((d): d is DeviceSummary => d !== undefined);
  // In parallel, each bounded by the timeout: the document waits at most one more timeout after the list.
  await Promise.all(
    devices.slice(0, CHARTED_DEVICES).map(async (device) => {
      device.recent = await readRecent(backendUrl, device.deviceId, timeoutMs);
    }),
  );
  let latest: ReadingsStatus['latest'] = null;
  for (const { deviceId, connected, lastReading } of devices) {
    if (lastReading && (!latest || Date.parse(lastReading.timestamp) > Date.parse(latest.timestamp))) {
      latest = { deviceId, connected, ...lastReading };
    }
  }
  return { available: true, problem: null, devices, latest };
}

function toDevice(value: unknown): DeviceSummary | undefined {
  const device = asObject(value);
  if (typeof device?.deviceId !== 'string') return undefined;
  return {
    deviceId: device.deviceId,
    connected: device.connected === true,
    lastReading: toReading(device.lastReading),
    readingsStored:
      Number.isSafeInteger(device.readingsStored) && (device.readingsStored as number) >= 0
        ? (device.readingsStored as number)
        : null,
    recent: null,
  };
}

function toReading(value: unknown): DeviceReading | null {
  const reading = asObject(value);
  if (!reading || !Number.isSafeInteger(reading.seq) || typeof reading.timestamp !== 'string') return null;
  if (Number.isNaN(Date.parse(reading.timestamp)) || typeof reading.value !== 'string') return null;
  return { seq: reading.seq as number, timestamp: reading.timestamp, value: reading.value };
}
