// Turns the fleet part of /status.json into what the Readings panel says about it: how many devices there are,
// which need attention (a backlog, lost readings, silence, a lost connection) and a row for each listed device not
// charted; pure, so it is tested in Node.
import { formatAge, formatCount, formatValue } from './format.js';

/** Not heard from for this long, a device is silent (the shipped device reads every second and pings). */
export const SILENT_MS = 60_000;

/** @param {import('../status-document.ts').ReadingsStatus} readings */
export function describeFleetCount(readings) {
  const { total, devices } = readings;
  if (total <= devices.length) return formatCount(total, 'device');
  return `${formatCount(total, 'device')} · the first ${formatCount(devices.length, 'device')} listed`;
}

/**
 * The devices the backend ranks first by need of attention, each with its reasons in words; a device it lists
 * that needs nothing (connected, nothing held, heard from lately) is left out.
 * @param {import('../status-document.ts').ReadingsStatus} readings
 */
export function describeAttention(readings, checkedAt) {
  const { attention } = readings;
  if (!attention.available) return { items: [], note: { tone: 'warn', text: attention.problem } };
  const items = [];
  for (const device of attention.devices) {
    const reasons = attentionReasons(device, checkedAt);
    if (reasons.length) items.push({ deviceId: device.deviceId, text: reasons.join(' · ') });
  }
  return { items, note: items.length ? null : { tone: 'muted', text: 'Nothing needs attention.' } };
}

function attentionReasons(device, checkedAt) {
  const reasons = [];
  if (!device.connected) reasons.push('disconnected');
  if (device.backlog) reasons.push(`${formatCount(device.backlog, 'reading')} held`);
  if (device.readingsLost) reasons.push(`${formatCount(device.readingsLost, 'reading')} lost`);
  const heard = device.lastSeenAt ?? device.lastReading?.timestamp ?? null;
  if (heard === null) reasons.push('never heard from');
  else {
    const silence = Date.parse(checkedAt) - Date.parse(heard);
    if (silence >= SILENT_MS) reasons.push(`last heard ${formatAge(silence)}`);
  }
  return reasons;
}

/**
 * One table row per listed device that has no card (the frontend charts only the first few).
 * @param {import('../status-document.ts').FleetDevice[]} devices
 */
export function describeFleetRows(devices, checkedAt) {
  return devices.map((device) => {
    const last = device.lastReading;
    return {
      deviceId: device.deviceId,
      verdict: device.connected ? { tone: 'good', text: 'Connected' } : { tone: 'warn', text: 'Disconnected' },
      value: last ? formatValue(last) : 'none yet',
      age: last ? formatAge(Date.parse(checkedAt) - Date.parse(last.timestamp)) : null,
      iso: last ? last.timestamp : null,
      backlog:
        device.backlog === null ? 'unknown' : device.backlog === 0 ? 'none' : formatCount(device.backlog, 'reading'),
    };
  });
}
