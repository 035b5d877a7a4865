// Asks the backend for one device's latest readings (GET /api/readings) and charts them; never throws.
import { asObject } from '../lib/json-object.ts';
import { probe } from './probe.ts';
import { buildSeries } from './reading-series.ts';
import { endpointUrl } from '../lib/endpoint-url.ts';
import { servedListMaxBytes } from './reading-value.ts';
import type { RecentReadings } from './status-document.ts';

/** Readings per device: a minute of the emulator's one a second, and few enough to draw on a phone. */
export const RECENT_LIMIT = 60;

/** Sixty readings of up to 8 KiB each as the backend serves them (JSON-escaped), with their JSON around them. */
export const RECENT_MAX_BYTES = servedListMaxBytes(RECENT_LIMIT);

export async function readRecent(
  backendUrl: string,
  deviceId: string,
  timeoutMs: number,
  headers: Record<string, string> = {},
): Promise<RecentReadings> {
  // The query is set apart: endpointUrl joins paths, and would escape a `?` inside one.
  const url = new URL(endpointUrl(backendUrl, '/api/readings'));
  url.search = `deviceId=${encodeURIComponent(deviceId)}&limit=${RECENT_LIMIT}`;
  const result = await probe(url.href, timeoutMs, { maxBytes: RECENT_MAX_BYTES, headers });
  const unavailable = (problem: string): RecentReadings => ({
    available: false,
    problem: `readings: ${problem}`,
    series: { name: null, points: [] },
  });
  if (!result.reached) return unavailable(result.error);
  const body = asObject(result.body);
  if (result.status !== 200 || !Array.isArray(body?.readings)) {
    const said = typeof body?.error === 'string' ? `: ${oneLine(body.error)}` : ' without a readings list';
    return unavailable(`backend answered HTTP ${result.status}${said}`);
  }
  return { available: true, problem: null, series: buildSeries(body.readings) };
}

/** A service's error text as one short line: it is shown on the page and must not take it over. */
function oneLine(text: string, max = 160): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
