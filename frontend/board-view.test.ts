import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { describeBoard, formatAge, formatDuration, type Panel } from './public/board-view.js';
import type { ServiceStatus, StatusDocument } from './status-document.ts';

const service = (over: Partial<ServiceStatus> & Pick<ServiceStatus, 'name'>): ServiceStatus => ({
  url: `http://127.0.0.1:1/${over.name}`,
  liveness: 'ok',
  readiness: 'ready',
  checks: {},
  uptime: 3725,
  environment: 'production',
  database: null,
  problem: null,
  ms: 4,
  ...over,
});

const doc = (over: Partial<StatusDocument> = {}): StatusDocument => ({
  checkedAt: '2026-01-01T10:00:10.000Z',
  timeoutMs: 1500,
  overall: 'ready',
  services: {
    backend: service({
      name: 'backend',
      checks: { database: 'connected' },
      database: { status: 'connected', name: 'health' },
    }),
    device: service({ name: 'device', environment: 'local', checks: { serial: 'emulator', backend: 'connected' } }),
  },
  readings: {
    available: true,
    problem: null,
    devices: [],
    latest: {
      deviceId: 'emulator-1',
      connected: true,
      seq: 42,
      timestamp: '2026-01-01T10:00:07.000Z',
      value: '21.5 C',
    },
  },
  ...over,
});

const panel = (panels: Panel[], id: Panel['id']) => panels.find((p) => p.id === id)!;
const row = (p: Panel, label: string) => p.rows.find((r) => r.label === label);

test('all ready: a good summary, and each panel names its checks with words and tones', () => {
  const board = describeBoard(doc());
  assert.equal(board.summary, { tone: 'good', text: 'All services ready' });
  assert.is(board.stale, false);
  assert.equal(board.refreshed?.iso, '2026-01-01T10:00:10.000Z');
  assert.equal(
    board.panels.map((p) => p.id),
    ['backend', 'device', 'reading'],
  );
  const backend = panel(board.panels, 'backend');
  assert.equal(backend.verdict, { tone: 'good', text: 'Ready' });
  assert.equal(row(backend, 'database'), { label: 'database', text: 'connected', tone: 'good', check: true });
  assert.is(row(backend, 'Uptime')?.text, '1 h 02 min');
  assert.is(row(backend, 'Database')?.text, 'health (connected)');
  const device = panel(board.panels, 'device');
  assert.is(row(device, 'serial')?.text, 'emulator');
  assert.is(row(device, 'serial')?.tone, 'good');
  assert.is(row(device, 'Environment')?.text, 'local');
  const reading = panel(board.panels, 'reading');
  assert.equal(reading.verdict, { tone: 'good', text: 'Device connected' });
  assert.is(row(reading, 'Value')?.text, '21.5 C');
  assert.is(row(reading, 'Sequence')?.text, '#42');
  assert.match(row(reading, 'Read at')?.text ?? '', /^\d\d:\d\d:07 \(3 s ago\)$/);
});

test('an unreachable backend: bad summary naming it, panel says Unreachable and why', () => {
  const board = describeBoard(
    doc({
      overall: 'degraded',
      services: {
        backend: service({
          name: 'backend',
          liveness: 'unreachable',
          readiness: 'unreachable',
          uptime: null,
          environment: null,
          problem: 'unreachable: connection refused',
        }),
        device: service({
          name: 'device',
          readiness: 'not_ready',
          checks: { serial: 'emulator', backend: 'disconnected' },
        }),
      },
      readings: { available: false, problem: 'device list: connection refused', devices: [], latest: null },
    }),
  );
  assert.equal(board.summary, { tone: 'bad', text: 'Backend: unreachable · Device service: not ready' });
  const backend = panel(board.panels, 'backend');
  assert.equal(backend.verdict, { tone: 'bad', text: 'Unreachable' });
  assert.is(backend.note, 'unreachable: connection refused');
  assert.equal(row(backend, 'Checks'), { label: 'Checks', text: 'unknown', tone: 'muted', check: true });
  assert.is(row(backend, 'Uptime')?.text, '—');
  const device = panel(board.panels, 'device');
  assert.equal(device.verdict, { tone: 'warn', text: 'Not ready' });
  assert.is(row(device, 'backend')?.tone, 'bad');
  assert.equal(panel(board.panels, 'reading').verdict, { tone: 'warn', text: 'Unavailable' });
});

test('live but readiness unreachable is a problem, not a pass', () => {
  const board = describeBoard(
    doc({ services: { backend: service({ name: 'backend', readiness: 'unreachable' }), device: null } }),
  );
  assert.equal(panel(board.panels, 'backend').verdict, { tone: 'bad', text: 'Readiness unreachable' });
});

test('device monitoring disabled: a muted panel saying so; the summary speaks of the backend alone', () => {
  const board = describeBoard(doc({ services: { backend: service({ name: 'backend' }), device: null } }));
  assert.equal(board.summary, { tone: 'good', text: 'Backend ready' });
  const device = panel(board.panels, 'device');
  assert.equal(device.verdict, { tone: 'muted', text: 'Not monitored' });
  assert.match(device.note ?? '', /DEVICE_URL is empty/);
});

test('no readings yet, and a disconnected device', () => {
  const none = describeBoard(doc({ readings: { available: true, problem: null, devices: [], latest: null } }));
  assert.equal(panel(none.panels, 'reading').verdict, { tone: 'muted', text: 'No readings yet' });
  const base = doc();
  const off = describeBoard(
    doc({ readings: { ...base.readings, latest: { ...base.readings.latest!, connected: false } } }),
  );
  assert.equal(panel(off.panels, 'reading').verdict, { tone: 'warn', text: 'Device disconnected' });
});

test('a failed refresh keeps the last data, marked stale, and says so', () => {
  const board = describeBoard(doc(), { fetchError: 'the frontend cannot be reached' });
  assert.is(board.stale, true);
  assert.is(board.summary.tone, 'bad');
  assert.match(
    board.summary.text,
    /^Status unavailable: the frontend cannot be reached\. Showing the data from \d\d:\d\d:10\.$/,
  );
  assert.is(board.panels.length, 3);
  const first = describeBoard(null, { fetchError: 'the frontend cannot be reached' });
  assert.equal(first.panels, []);
  assert.is(first.summary.tone, 'bad');
  assert.equal(describeBoard(null).summary, { tone: 'muted', text: 'Checking services…' });
});

test('durations and ages read naturally', () => {
  assert.is(formatDuration(0.4), '0 s');
  assert.is(formatDuration(59.9), '59 s');
  assert.is(formatDuration(252), '4 min 12 s');
  assert.is(formatDuration(3 * 3600 + 5 * 60), '3 h 05 min');
  assert.is(formatDuration(2 * 86400 + 4 * 3600 + 1), '2 d 4 h');
  assert.is(formatAge(900), 'just now');
  assert.is(formatAge(-2000), 'just now');
  assert.is(formatAge(5000), '5 s ago');
});

test.run();
