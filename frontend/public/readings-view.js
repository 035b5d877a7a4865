// Turns the readings part of /status.json into the Readings panel: the fleet's count and the devices needing
// attention (fleet-view.js), a card for each of the first few devices, with a small chart drawn from its recent
// numbers, and a table row for the rest of the page; pure, so it is tested in Node.
import { decimalsFor, formatAge, formatClock, formatCount, formatNumber, formatValue } from './format.js';
import { describeAttention, describeFleetCount, describeFleetRows } from './fleet-view.js';

/** The chart's drawing box; the page stretches it to the card's width (the line keeps its thickness). */
export const CHART = { width: 300, height: 80, pad: 6 };

/** @param {import('../status-document.ts').StatusDocument} doc */
export function describeReadings(doc) {
  const base = {
    id: 'readings',
    title: 'Readings',
    url: null,
    rows: [],
    devices: [],
    fleet: null,
    attention: null,
    others: [],
    held: null,
  };
  const { readings } = doc;
  const backlog = doc.services.device?.backlog;
  const held = backlog?.unacknowledged ? `${formatCount(backlog.unacknowledged, 'reading')} held on the device` : null;
  if (!readings.available) {
    return { ...base, verdict: { tone: 'warn', text: 'Unavailable' }, note: readings.problem, held };
  }
  const { devices } = readings;
  if (devices.length === 0) {
    return { ...base, verdict: { tone: 'muted', text: 'No devices yet' }, note: null, held };
  }
  // Devices past the first few carry no series: the frontend did not ask for them.
  const charted = devices.filter((d) => d.recent !== null);
  const others = devices.filter((d) => d.recent === null);
  return {
    ...base,
    verdict: describeConnected(devices, readings.total),
    note: null,
    held,
    fleet: describeFleetCount(readings),
    attention: describeAttention(readings, doc.checkedAt),
    devices: charted.map((d) => describeDevice(d, doc.checkedAt)),
    others: describeFleetRows(others, doc.checkedAt),
  };
}

/** How many of the listed devices are connected; of the first page only, when the fleet is larger. */
function describeConnected(devices, total) {
  const connected = devices.filter((d) => d.connected).length;
  const tone = connected === devices.length ? 'good' : 'warn';
  if (total > devices.length) return { tone, text: `${connected} of the first ${devices.length} connected` };
  if (devices.length > 1) return { tone, text: `${connected} of ${devices.length} connected` };
  return connected ? { tone, text: 'Device connected' } : { tone, text: 'Device disconnected' };
}

function describeDevice(device, checkedAt) {
  const { lastReading: last, recent } = device;
  const latest = last && {
    value: formatValue(last),
    seq: last.seq,
    iso: last.timestamp,
    clock: formatClock(last.timestamp),
    age: formatAge(Date.parse(checkedAt) - Date.parse(last.timestamp)),
  };
  const chart = recent.available ? describeChart(recent.series, checkedAt) : null;
  let note = null;
  if (!recent.available) note = { tone: 'warn', text: recent.problem };
  else if (!latest && recent.series.points.length === 0) note = { tone: 'muted', text: 'No readings yet.' };
  else if (!chart) note = { tone: 'muted', text: 'Nothing to chart: these readings carry no number.' };
  return {
    deviceId: device.deviceId,
    verdict: device.connected ? { tone: 'good', text: 'Connected' } : { tone: 'warn', text: 'Disconnected' },
    latest,
    stored: device.readingsStored === null ? null : `${formatCount(device.readingsStored, 'reading')} stored`,
    chart,
    note,
  };
}

/**
 * The chart of one series, or null when no point carries a number. x is time of receipt (oldest to newest), y runs from
 * the lowest number (bottom) to the highest (top); readings without a number break the line.
 * @param {import('../status-document.ts').ReadingSeries} series
 */
export function describeChart(series, checkedAt) {
  const numbered = series.points.filter((p) => p.number !== null);
  if (numbered.length === 0) return null;
  const numbers = numbered.map((p) => p.number);
  const min = Math.min(...numbers);
  const max = Math.max(...numbers);
  // Time of receipt, the order the points come in: a device clock gone back cannot fold the line over itself.
  const times = series.points.map((p) => Date.parse(p.receivedAt));
  const first = Math.min(...times);
  const last = Math.max(...times);
  const { width, height, pad } = CHART;
  const x = (t) => (last === first ? width / 2 : ((t - first) / (last - first)) * width);
  const y = (n) => (max === min ? height / 2 : pad + ((max - n) / (max - min)) * (height - 2 * pad));
  const at = (p) => `${round(x(Date.parse(p.receivedAt)))} ${round(y(p.number))}`;

  // One subpath per unbroken run; a run of one point is a dot (a zero-length line with round caps).
  const runs = [];
  let run = [];
  for (const p of series.points) {
    if (p.number === null) {
      if (run.length) runs.push(run);
      run = [];
    } else run.push(p);
  }
  if (run.length) runs.push(run);
  const line = runs.map((r) => (r.length === 1 ? `M${at(r[0])}h0` : `M${r.map(at).join('L')}`)).join('');

  const decimals = decimalsFor(numbers);
  const show = (n) => formatNumber(n, decimals);
  const newest = numbered[numbered.length - 1];
  // A single moment has no span: one time label, under the middle.
  const from = last === first ? null : formatAge(Date.parse(checkedAt) - first);
  const to = formatAge(Date.parse(checkedAt) - last);
  const when = from === null ? `at ${to}` : `from ${from} to ${to}`;
  const what = series.name ?? 'Readings';
  const count = formatCount(series.points.length, 'reading');
  return {
    line,
    newest: `M${at(newest)}h0`,
    grid: `M0 ${round(y(max))}H${width}M0 ${round(y(min))}H${width}`,
    latest: show(newest.number),
    min: show(min),
    max: show(max),
    from,
    to,
    label: `${what} ${when} (${count}): latest ${show(newest.number)}, min ${show(min)}, max ${show(max)}`,
  };
}

const round = (n) => Math.round(n * 10) / 10;
