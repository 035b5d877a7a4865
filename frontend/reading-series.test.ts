import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildSeries } from './reading-series.ts';
import { fakeReadings } from '../test/support/fake-readings.ts';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, s)).toISOString();
// As fakeReadings stamps them: received 5 ms after the device read them.
const received = (s: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, s, 5)).toISOString();
const reading = (s: number, value: string) => ({ deviceId: 'd', session: 'x', seq: s, timestamp: at(s), value });

test("the backend's newest-first answer becomes an oldest-first series of numbers, named after the quantity", () => {
  const readings = fakeReadings({
    deviceId: 'emulator-1',
    count: 3,
    newest: new Date(at(12)),
    everyMs: 1000,
    value: (i) => `temperature_c=${21 + i / 10}`,
  });
  assert.equal(buildSeries(readings), {
    name: 'temperature_c',
    points: [
      { timestamp: at(10), receivedAt: received(10), number: 21 },
      { timestamp: at(11), receivedAt: received(11), number: 21.1 },
      { timestamp: at(12), receivedAt: received(12), number: 21.2 },
    ],
  });
});

test('readings without a number, or naming another quantity, are gaps; the newest numeric reading names it', () => {
  const series = buildSeries([
    reading(5, 'humidity=40'),
    reading(4, 'error: sensor timeout'),
    reading(3, 'temperature_c=20.5'),
    reading(2, 'humidity=41'),
    reading(1, 'humidity=42'),
  ]);
  assert.is(series.name, 'humidity');
  assert.equal(
    series.points.map((p) => p.number),
    [42, 41, null, null, 40],
  );
});

test('bare numbers: no name', () => {
  const series = buildSeries([reading(2, '21.5 C'), reading(1, '21')]);
  assert.equal(series, {
    name: null,
    points: [
      { timestamp: at(1), receivedAt: at(1), number: 21 },
      { timestamp: at(2), receivedAt: at(2), number: 21.5 },
    ],
  });
});

test('nothing numeric: every point is null and there is no name; an empty answer is an empty series', () => {
  assert.equal(buildSeries([reading(2, 'open'), reading(1, 'closed')]), {
    name: null,
    points: [
      { timestamp: at(1), receivedAt: at(1), number: null },
      { timestamp: at(2), receivedAt: at(2), number: null },
    ],
  });
  assert.equal(buildSeries([]), { name: null, points: [] });
});

test('malformed entries are skipped; an answer out of order is still charted left to right', () => {
  const series = buildSeries([
    reading(1, '1'),
    null,
    'nonsense',
    { timestamp: 'yesterday', value: '2' },
    { timestamp: at(9), value: 3 },
    { value: '4' },
    reading(3, '3'),
    reading(2, '2'),
  ]);
  assert.equal(
    series.points.map((p) => [p.timestamp, p.number]),
    [
      [at(1), 1],
      [at(2), 2],
      [at(3), 3],
    ],
  );
});

test('in the order the backend received them: a clock gone back neither hides the newest nor draws it first', () => {
  // Session 2 starts with the device's clock a day behind: its readings are received last, stamped "yesterday".
  const yesterday = (s: number) => new Date(Date.UTC(2025, 11, 31, 10, 0, s)).toISOString();
  const got = (seq: number, timestamp: string, receivedAt: string, value: string) => ({
    seq,
    timestamp,
    receivedAt,
    value,
  });
  const series = buildSeries([
    got(2, yesterday(21), at(21), 'temperature_c=30'),
    got(1, yesterday(20), at(20), 'temperature_c=29'),
    got(9, at(19), at(19), 'temperature_c=20'),
    got(8, at(18), at(18), 'temperature_c=19'),
  ]);
  assert.equal(
    series.points.map((p) => p.number),
    [19, 20, 29, 30],
    'oldest received first, newest last',
  );
  // One frame: one time of receipt, then seq.
  const frame = buildSeries([got(2, at(1), at(5), '2'), got(3, at(0), at(5), '3'), got(1, at(2), at(5), '1')]);
  assert.equal(
    frame.points.map((p) => p.number),
    [1, 2, 3],
  );
});

test.run();
