// Turns a device's recent readings (the backend's answer, newest first) into the series the page charts.
import { asObject } from '../lib/json-object.ts';
import { parseReadingNumber } from './reading-number.ts';
import type { ReadingSeries } from './status-document.ts';

/**
 * Oldest first. The series charts one quantity: the one the newest numeric reading names, so a device that sends
 * `temperature_c=…` and `humidity=…` lines does not draw both on one scale; readings of another name, or with no
 * number, are points with `number: null` (a gap in the line). Malformed entries are skipped.
 */
export function buildSeries(readings: unknown[]): ReadingSeries {
  const parsed: { timestamp: string; parsed: ReturnType<typeof parseReadingNumber> }[] = [];
  for (const entry of readings) {
    const reading = asObject(entry);
    if (typeof reading?.timestamp !== 'string' || Number.isNaN(Date.parse(reading.timestamp))) continue;
    if (typeof reading.value !== 'string') continue;
    parsed.push({ timestamp: reading.timestamp, parsed: parseReadingNumber(reading.value) });
  }
  // The backend sends them newest first: reversed, then sorted (stable), so equal timestamps keep their order and
  // an answer in another order is still charted left to right.
  parsed.reverse().sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
  const newest = parsed.findLast((p) => p.parsed !== null)?.parsed;
  const name = newest?.name ?? null;
  const points = parsed.map(({ timestamp, parsed: p }) => ({
    timestamp,
    number: p !== null && p.name === name ? p.number : null,
  }));
  return { name, points };
}
