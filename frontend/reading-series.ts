// Turns a device's recent readings (the backend's answer, newest first) into the series the page charts.
import { asObject } from '../lib/json-object.ts';
import { parseReadingNumber } from './reading-number.ts';
import { byReceipt, receivedAtOf } from './receipt-order.ts';
import type { ReadingSeries } from './status-document.ts';

/**
 * In the order the backend received them (receivedAt, then seq), oldest first, never by the device's clock: a device
 * whose clock went back still has its newest reading drawn last. The series charts one quantity: the one the newest
 * numeric reading names, so a device that sends `temperature_c=…` and `humidity=…` lines does not draw both on one
 * scale; readings of another name, or with no number, are points with `number: null` (a gap in the line). Malformed
 * entries are skipped.
 */
export function buildSeries(readings: unknown[]): ReadingSeries {
  const parsed: {
    timestamp: string;
    receivedAt: string;
    seq: number;
    parsed: ReturnType<typeof parseReadingNumber>;
  }[] = [];
  for (const entry of readings) {
    const reading = asObject(entry);
    if (typeof reading?.timestamp !== 'string' || Number.isNaN(Date.parse(reading.timestamp))) continue;
    if (typeof reading.value !== 'string') continue;
    const timestamp = reading.timestamp;
    const seq = Number.isSafeInteger(reading.seq) ? (reading.seq as number) : 0;
    parsed.push({
      timestamp,
      receivedAt: receivedAtOf({ ...reading, timestamp }),
      seq,
      parsed: parseReadingNumber(reading.value),
    });
  }
  // The backend sends them newest first: reversed, then sorted (stable), so readings it cannot tell apart keep its
  // order and an answer in another order is still charted left to right.
  parsed.reverse().sort(byReceipt);
  const newest = parsed.findLast((p) => p.parsed !== null)?.parsed;
  const name = newest?.name ?? null;
  const points = parsed.map(({ timestamp, receivedAt, parsed: p }) => ({
    timestamp,
    receivedAt,
    number: p !== null && p.name === name ? p.number : null,
  }));
  return { name, points };
}
