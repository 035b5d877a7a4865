import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createReadinessHistory, describeTimeline, TIMELINE_WINDOW_MS } from './public/readiness-timeline.js';
import { formatClock } from './public/format.js';
import type { ServiceStatus, StatusDocument } from './status-document.ts';

const T0 = Date.parse('2026-01-01T10:00:00.000Z');
const MIN = 60_000;

const service = (name: 'backend' | 'device', over: Partial<ServiceStatus> = {}): ServiceStatus => ({
  name,
  url: `http://127.0.0.1:1/${name}`,
  liveness: 'ok',
  readiness: 'ready',
  checks: {},
  details: {},
  version: null,
  uptime: 1,
  environment: 'production',
  database: null,
  backlog: null,
  problem: null,
  ms: 1,
  ...over,
});

/** A poll's document at T0 + `minutes`, the backend in `backend` (its readiness, or a liveness failure). */
const poll = (minutes: number, backend: Partial<ServiceStatus>, device: ServiceStatus | null = service('device')) =>
  ({
    version: 'rel-7',
    checkedAt: new Date(T0 + minutes * MIN).toISOString(),
    timeoutMs: 1500,
    overall: 'ready',
    operator: true,
    services: { backend: service('backend', backend), device },
    readings: {
      available: true,
      problem: null,
      total: 0,
      devices: [],
      attention: { available: true, problem: null, devices: [] },
      latest: null,
    },
  }) as StatusDocument;

const clock = (minutes: number) => formatClock(new Date(T0 + minutes * MIN).toISOString());

test('a flapping database: each change is kept once, repeated polls of one state are not', () => {
  const history = createReadinessHistory();
  const flaps: Array<[number, Partial<ServiceStatus>]> = [
    [0, {}],
    [1, {}],
    [10, { readiness: 'not_ready' }],
    [10.5, { readiness: 'not_ready' }],
    [12, {}],
    [20, { readiness: 'not_ready' }],
    [21, {}],
    [30, { liveness: 'unreachable', readiness: 'unreachable' }],
    [31, {}],
  ];
  for (const [minutes, backend] of flaps) history.record(poll(minutes, backend));
  assert.equal(
    history.of('backend').map(({ at, state }) => [(at - T0) / MIN, state]),
    [
      [0, 'ready'],
      [10, 'not_ready'],
      [12, 'ready'],
      [20, 'not_ready'],
      [21, 'ready'],
      [30, 'unreachable'],
      [31, 'ready'],
    ],
  );
  assert.equal(history.of('device').length, 1);
  const timeline = describeTimeline(history.of('backend'), T0 + 40 * MIN)!;
  assert.is(timeline.changes, 6);
  assert.is(timeline.text, `6 changes in the last 40 min 0 s; ready since ${clock(31)}`);
  assert.equal(
    timeline.segments.map((s) => [s.tone, s.state]),
    [
      ['good', 'ready'],
      ['warn', 'not ready'],
      ['good', 'ready'],
      ['warn', 'not ready'],
      ['good', 'ready'],
      ['bad', 'unreachable'],
      ['good', 'ready'],
    ],
  );
  // Watched for 40 minutes, less than the hour: the strip spans those 40 minutes.
  assert.equal([timeline.segments[0]!.left, timeline.segments[1]!.left, timeline.segments[1]!.width], [0, 25, 5]);
  assert.ok(
    timeline.label.startsWith(`Readiness over the last hour: ready from ${clock(0)}, not ready from ${clock(10)}`),
  );
});

test('only the last hour is kept; the state the hour began in starts the strip at its left edge', () => {
  const history = createReadinessHistory();
  history.record(poll(0, { readiness: 'not_ready' }));
  history.record(poll(5, {}));
  history.record(poll(50, { readiness: 'not_ready' }));
  history.record(poll(70, { readiness: 'not_ready' }));
  assert.equal(
    history.of('backend').map(({ at }) => (at - T0) / MIN),
    [5, 50],
    'the change at 0 is over an hour old and no longer needed',
  );
  const timeline = describeTimeline(history.of('backend'), T0 + 70 * MIN)!;
  assert.is(timeline.segments[0]!.left, 0);
  assert.is(timeline.segments[0]!.from, clock(10));
  assert.is(timeline.changes, 1);
  assert.is(timeline.text, `1 change in the last hour; not ready since ${clock(50)}`);
});

test('a steady service, just seen, no poll yet, a device not monitored, a document without a time', () => {
  const history = createReadinessHistory();
  assert.is(describeTimeline(history.of('backend'), T0), null);
  history.record(poll(0, {}, null));
  history.record(poll(3, {}, null));
  history.record({ ...poll(4, { readiness: 'not_ready' }), checkedAt: 'not a time' });
  assert.is(history.of('device').length, 0);
  const timeline = describeTimeline(history.of('backend'), T0 + 3 * MIN)!;
  assert.equal([timeline.changes, timeline.text], [0, 'ready throughout (watched 3 min 0 s)']);
  assert.equal(timeline.segments, [{ left: 0, width: 100, tone: 'good', state: 'ready', from: clock(0) }]);
  const early = describeTimeline(history.of('backend'), T0 + 0.5 * MIN)!;
  assert.equal([early.segments[0]!.left, early.segments[0]!.width], [50, 50], 'at least a minute is spanned');
  const first = describeTimeline(history.of('backend'), T0)!;
  assert.is(first.text, 'ready when first seen, just now; this strip fills in as the page keeps watching');
  assert.is(describeTimeline(history.of('backend'), T0 + 999)!.text, first.text);
  assert.is(describeTimeline(history.of('backend'), T0 + 1000)!.text, 'ready throughout (watched 1 s)');
});

test('a state flipping on every poll keeps a bounded number of changes', () => {
  const history = createReadinessHistory();
  for (let i = 0; i < 1800; i++) history.record(poll(i / 30, { readiness: i % 2 ? 'not_ready' : 'ready' }));
  assert.is(history.of('backend').length, 600);
  assert.ok(TIMELINE_WINDOW_MS === 3_600_000);
});

test.run();
