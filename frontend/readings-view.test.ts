import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CHART, describeChart, describeReadings } from './public/readings-view.js';
import { decimalsFor, formatBytes, formatCount, formatNumber } from './public/format.js';
import type { FleetDevice, ReadingSeries, RecentReadings, StatusDocument } from './status-document.ts';

const CHECKED_AT = '2026-01-01T10:01:00.000Z';
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, s)).toISOString();
const series = (numbers: (number | null)[], name: string | null = 'temperature_c', step = 1): ReadingSeries => ({
  name,
  points: numbers.map((number, i) => ({ timestamp: at(i * step), receivedAt: at(i * step), number })),
});

/** The path's points as numbers, per subpath. */
const subpaths = (d: string) =>
  d
    .split('M')
    .filter(Boolean)
    .map((sub) =>
      sub
        .replace(/h0$/, '')
        .split('L')
        .map((xy) => xy.split(' ').map(Number)),
    );

test('a chart: the line spans the box left to right, the highest number at the top, the lowest at the bottom', () => {
  const chart = describeChart(series([20, 22, 21, 20.5], 'temperature_c', 20), CHECKED_AT)!;
  const { width, height, pad } = CHART;
  assert.equal(subpaths(chart.line), [
    [
      [0, height - pad],
      [width / 3, pad],
      [(width * 2) / 3, height / 2],
      [width, 57],
    ],
  ]);
  assert.is(chart.newest, `M${width} 57h0`);
  assert.is(chart.grid, `M0 ${pad}H${width}M0 ${height - pad}H${width}`);
  assert.equal([chart.min, chart.max, chart.latest], ['20.0', '22.0', '20.5'], 'one number of decimals for all');
  assert.equal([chart.from, chart.to], ['1 min 0 s ago', 'just now']);
  assert.is(chart.label, 'temperature_c from 1 min 0 s ago to just now (4 readings): latest 20.5, min 20.0, max 22.0');
});

test('the time axis is the time of receipt: a device clock gone back does not fold the line over itself', () => {
  // Received 20 s apart; the device's clock went back a day between the second and the third.
  const stamped = ['2026-01-01T10:00:00.000Z', '2026-01-01T10:00:20.000Z', '2025-12-31T10:00:40.000Z'];
  const points = [1, 2, 3].map((number, i) => ({ timestamp: stamped[i]!, receivedAt: at(i * 20), number }));
  const chart = describeChart({ name: null, points }, CHECKED_AT)!;
  assert.equal(
    subpaths(chart.line)[0]!.map(([x]) => x),
    [0, CHART.width / 2, CHART.width],
  );
  assert.equal([chart.from, chart.to, chart.latest], ['1 min 0 s ago', '20 s ago', '3']);
});

test('gaps: readings without a number break the line; a lone number between gaps is a dot', () => {
  const chart = describeChart(series([1, 2, null, 3, null, 4, 5]), CHECKED_AT)!;
  const subs = subpaths(chart.line);
  assert.is(subs.length, 3);
  assert.equal(
    subs.map((s) => s.length),
    [2, 1, 2],
  );
  assert.match(chart.line, /M[\d.]+ [\d.]+h0M/, 'the lone point is drawn as a zero-length line (a round dot)');
  assert.match(chart.label, /\(7 readings\): latest 5, min 1, max 5$/);
});

test('a flat series sits in the middle; a single reading has one time, not a span', () => {
  const flat = describeChart(series([21, 21, 21]), CHECKED_AT)!;
  assert.ok(subpaths(flat.line)[0]!.every(([, y]) => y === CHART.height / 2));
  assert.equal([flat.min, flat.max], ['21', '21']);
  const one = describeChart(
    { name: null, points: [{ timestamp: at(30), receivedAt: at(30), number: 7.5 }] },
    CHECKED_AT,
  )!;
  assert.is(one.line, `M${CHART.width / 2} ${CHART.height / 2}h0`);
  assert.is(one.from, null);
  assert.is(one.to, '30 s ago');
  assert.is(one.label, 'Readings at 30 s ago (1 reading): latest 7.5, min 7.5, max 7.5');
});

test('no number at all: no chart', () => {
  assert.is(describeChart(series([null, null]), CHECKED_AT), null);
  assert.is(describeChart({ name: null, points: [] }, CHECKED_AT), null);
});

const recent = (s: ReadingSeries): RecentReadings => ({ available: true, problem: null, series: s });
const device = (deviceId: string, over: Partial<FleetDevice> = {}): FleetDevice => ({
  deviceId,
  connected: true,
  lastReading: { seq: 7, timestamp: at(50), receivedAt: at(50), value: 'temperature_c=21.00' },
  readingsStored: 1500,
  readingsLost: 0,
  backlog: 0,
  lastSeenAt: at(55),
  recent: recent(series([21, 21.5])),
  ...over,
});
const doc = (devices: FleetDevice[], total = devices.length, attention: FleetDevice[] = []) =>
  ({
    checkedAt: CHECKED_AT,
    services: { device: null },
    readings: {
      available: true,
      problem: null,
      total,
      devices,
      attention: { available: true, problem: null, devices: attention },
      latest: null,
    },
  }) as unknown as StatusDocument;

test('one card per charted device, with the newest value, its age and what the backend stores', () => {
  const panel = describeReadings(doc([device('a'), device('b', { connected: false })]));
  assert.equal(panel.verdict, { tone: 'warn', text: '1 of 2 connected' });
  const [a, b] = panel.devices;
  assert.equal(
    { ...a!, chart: null },
    {
      deviceId: 'a',
      verdict: { tone: 'good', text: 'Connected' },
      latest: { value: 'temperature_c=21.00', seq: 7, iso: at(50), clock: a!.latest!.clock, age: '10 s ago' },
      stored: '1,500 readings stored',
      chart: null,
      note: null,
    },
  );
  assert.is(a?.chart?.latest, '21.5');
  assert.equal(b?.verdict, { tone: 'warn', text: 'Disconnected' });
  assert.equal(describeReadings(doc([device('a'), device('b')])).verdict, { tone: 'good', text: '2 of 2 connected' });
});

test('a device whose readings failed, carry no number, or have not come: a note instead of a chart', () => {
  const failed = device('failed', {
    recent: { available: false, problem: 'readings: no answer within 1500 ms', series: { name: null, points: [] } },
  });
  const words = device('words', { recent: recent(series([null, null], null)) });
  const empty = device('empty', {
    lastReading: null,
    readingsStored: null,
    recent: recent({ name: null, points: [] }),
  });
  const [f, w, e] = describeReadings(doc([failed, words, empty])).devices;
  assert.equal([f?.chart, f?.note], [null, { tone: 'warn', text: 'readings: no answer within 1500 ms' }]);
  assert.equal(f?.latest?.value, 'temperature_c=21.00', 'the newest value still shows');
  assert.equal(w?.note, { tone: 'muted', text: 'Nothing to chart: these readings carry no number.' });
  assert.equal([e?.latest, e?.stored, e?.note], [null, null, { tone: 'muted', text: 'No readings yet.' }]);
});

test('a fleet larger than the page: the count, the first page, a row for each listed device without a card', () => {
  const many = Array.from({ length: 20 }, (_, i) =>
    device(`d${i}`, i < 8 ? {} : { recent: null, connected: i !== 9, backlog: i === 10 ? 1234 : i === 11 ? null : 0 }),
  );
  many[12] = { ...many[12]!, lastReading: null };
  const panel = describeReadings(doc(many, 2500));
  assert.is(panel.fleet, '2,500 devices · the first 20 devices listed');
  assert.equal(panel.verdict, { tone: 'warn', text: '19 of the first 20 connected' });
  assert.is(panel.devices.length, 8);
  assert.equal(
    panel.others.map((row) => row.deviceId),
    Array.from({ length: 12 }, (_, i) => `d${i + 8}`),
  );
  const [d8, d9, d10, d11, d12] = panel.others;
  assert.equal(d8, {
    deviceId: 'd8',
    verdict: { tone: 'good', text: 'Connected' },
    value: 'temperature_c=21.00',
    age: '10 s ago',
    iso: at(50),
    backlog: 'none',
  });
  assert.equal(d9?.verdict, { tone: 'warn', text: 'Disconnected' });
  assert.equal([d10?.backlog, d11?.backlog], ['1,234 readings', 'unknown']);
  assert.equal([d12?.value, d12?.age, d12?.iso], ['none yet', null, null]);
  assert.is(describeReadings(doc(many.slice(0, 3))).fleet, '3 devices');
});

test('needs attention: backlog, lost readings, silence, lost connection; a device needing nothing is left out', () => {
  const held = device('held', { backlog: 1234 });
  const silent = device('silent', { lastSeenAt: at(0), lastReading: null });
  const lost = device('lost', { connected: false, backlog: 2, lastSeenAt: '2026-01-01T09:55:00.000Z' });
  const evicted = device('evicted', { readingsLost: 3242 });
  const never = device('never', { lastSeenAt: null, lastReading: null });
  const fine = device('fine');
  const byReading = device('by reading', {
    lastSeenAt: null,
    lastReading: { seq: 1, timestamp: at(0), receivedAt: at(0), value: 'x' },
  });
  const panel = describeReadings(doc([fine], 1, [held, lost, evicted, silent, fine, never, byReading]));
  assert.equal(panel.attention, {
    items: [
      { deviceId: 'held', text: '1,234 readings held' },
      { deviceId: 'lost', text: 'disconnected · 2 readings held · last heard 6 min 0 s ago' },
      { deviceId: 'evicted', text: '3,242 readings lost' },
      { deviceId: 'silent', text: 'last heard 1 min 0 s ago' },
      { deviceId: 'never', text: 'never heard from' },
      { deviceId: 'by reading', text: 'last heard 1 min 0 s ago' },
    ],
    note: null,
  });
  assert.equal(describeReadings(doc([fine], 1, [fine])).attention, {
    items: [],
    note: { tone: 'muted', text: 'Nothing needs attention.' },
  });
  const failed = doc([fine]);
  failed.readings.attention = { available: false, problem: 'attention list: no response within 1500ms', devices: [] };
  assert.equal(describeReadings(failed).attention, {
    items: [],
    note: { tone: 'warn', text: 'attention list: no response within 1500ms' },
  });
});

test('numbers and counts as the page writes them', () => {
  assert.is(formatCount(1, 'reading'), '1 reading');
  assert.is(formatCount(0, 'reading'), '0 readings');
  assert.is(formatCount(12345, 'reading'), '12,345 readings');
  assert.is(formatBytes(512), '512 B');
  assert.is(formatBytes(187_392), '183.0 KiB');
  assert.is(formatBytes(5 * 1024 ** 3), '5.0 GiB');
  assert.is(decimalsFor([21, 21.05, 20.9]), 2);
  assert.is(decimalsFor([1, 2]), 0);
  assert.is(decimalsFor([0.123456789]), 4);
  assert.is(formatNumber(20.9, 2), '20.90');
  assert.is(formatNumber(-3, 1), '-3.0');
  assert.is(formatNumber(1.5e-7, 4), '1.500e-7');
  assert.is(formatNumber(0, 2), '0.00');
});

test.run();
