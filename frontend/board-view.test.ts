import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { describeBoard, formatAge, formatClock, formatDuration, type Panel } from './public/board-view.js';
import type { ServiceStatus, StatusDocument } from './status-document.ts';

// As the service judges its checks (details.ok): here, like the states the services declare ready.
const READY_STATES = new Set(['connected', 'emulator', 'writable']);
const judgedAsDeclared = (checks: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(checks).map(([name, state]) => [name, { ok: READY_STATES.has(state), since: null, reason: null }]),
  );

const service = (over: Partial<ServiceStatus> & Pick<ServiceStatus, 'name'>): ServiceStatus => ({
  url: `http://127.0.0.1:1/${over.name}`,
  liveness: 'ok',
  readiness: 'ready',
  checks: {},
  uptime: 3725,
  environment: 'production',
  database: null,
  backlog: null,
  problem: null,
  ms: 4,
  version: null,
  ...over,
  details: over.details ?? judgedAsDeclared(over.checks ?? {}),
});

const doc = (over: Partial<StatusDocument> = {}): StatusDocument => ({
  version: 'rel-7',
  checkedAt: '2026-01-01T10:00:10.000Z',
  timeoutMs: 1500,
  overall: 'ready',
  operator: true,
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
    total: 1,
    attention: { available: true, problem: null, devices: [] },
    devices: [
      {
        deviceId: 'emulator-1',
        connected: true,
        lastReading: {
          seq: 42,
          timestamp: '2026-01-01T10:00:07.000Z',
          receivedAt: '2026-01-01T10:00:07.000Z',
          value: '21.5 C',
        },
        readingsStored: 42,
        readingsLost: 0,
        backlog: 0,
        lastSeenAt: '2026-01-01T10:00:07.000Z',
        recent: {
          available: true,
          problem: null,
          series: {
            name: null,
            points: [{ timestamp: '2026-01-01T10:00:07.000Z', receivedAt: '2026-01-01T10:00:07.000Z', number: 21.5 }],
          },
        },
      },
    ],
    latest: {
      deviceId: 'emulator-1',
      connected: true,
      seq: 42,
      timestamp: '2026-01-01T10:00:07.000Z',
      receivedAt: '2026-01-01T10:00:07.000Z',
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
    ['backend', 'device', 'readings'],
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
  const readings = panel(board.panels, 'readings');
  assert.equal(readings.verdict, { tone: 'good', text: 'Device connected' });
  const card = readings.devices?.[0];
  assert.is(card?.latest?.value, '21.5 C');
  assert.is(card?.latest?.age, '3 s ago');
  assert.is(card?.latest?.seq, 42);
  assert.match(card?.latest?.clock ?? '', /^\d\d:\d\d:07$/);
  assert.is(card?.chart?.latest, '21.5');
  assert.is(readings.held, null);
});

test("the device service's backlog: rows in its panel, and a line in the Readings panel when it holds any", () => {
  const base = doc();
  const withBacklog = (backlog: ServiceStatus['backlog']) =>
    describeBoard(doc({ services: { ...base.services, device: { ...base.services.device!, backlog } } }));
  const none = withBacklog({ unacknowledged: 0, spoolBytes: 0, dropped: 0 });
  const device = panel(none.panels, 'device');
  assert.equal(row(device, 'Unacknowledged'), { label: 'Unacknowledged', text: 'none' });
  assert.equal(row(device, 'Spool'), { label: 'Spool', text: '0 B' });
  assert.is(row(device, 'Dropped'), undefined);
  assert.is(panel(none.panels, 'readings').held, null);

  const held = withBacklog({ unacknowledged: 1234, spoolBytes: 187_392, dropped: 3 });
  const busy = panel(held.panels, 'device');
  assert.is(row(busy, 'Unacknowledged')?.text, '1,234 readings held on the device');
  assert.is(row(busy, 'Spool')?.text, '183.0 KiB');
  assert.equal(row(busy, 'Dropped'), { label: 'Dropped', text: '3 readings (spool full)', tone: 'bad' });
  assert.is(panel(held.panels, 'readings').held, '1,234 readings held on the device');
  const one = withBacklog({ unacknowledged: 1, spoolBytes: null, dropped: null });
  assert.is(row(panel(one.panels, 'device'), 'Unacknowledged')?.text, '1 reading held on the device');
  assert.is(row(panel(one.panels, 'device'), 'Spool'), undefined);
  // A device service that does not report a backlog shows no rows for it.
  assert.is(row(panel(describeBoard(base).panels, 'device'), 'Unacknowledged'), undefined);
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
      readings: {
        available: false,
        problem: 'device list: connection refused',
        total: 0,
        devices: [],
        attention: { available: false, problem: null, devices: [] },
        latest: null,
      },
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
  const readings = panel(board.panels, 'readings');
  assert.equal(readings.verdict, { tone: 'warn', text: 'Unavailable' });
  assert.is(readings.note, 'device list: connection refused');
  assert.equal(readings.devices, []);
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

test('no devices yet, and a disconnected device', () => {
  const none = describeBoard(doc({ readings: { ...doc().readings, total: 0, devices: [], latest: null } }));
  assert.equal(panel(none.panels, 'readings').verdict, { tone: 'muted', text: 'No devices yet' });
  const base = doc();
  const off = describeBoard(
    doc({ readings: { ...base.readings, devices: [{ ...base.readings.devices[0]!, connected: false }] } }),
  );
  const readings = panel(off.panels, 'readings');
  assert.equal(readings.verdict, { tone: 'warn', text: 'Device disconnected' });
  assert.equal(readings.devices?.[0]?.verdict, { tone: 'warn', text: 'Disconnected' });
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

test("a check is as good or bad as its service judges it, whatever its state's name; a failing one says why", () => {
  const since = '2026-01-01T10:00:03.000Z';
  const device = service({
    name: 'device',
    readiness: 'not_ready',
    checks: { serial: 'emulator', backend: 'connected', spool: 'writable' },
    details: {
      serial: { ok: true, since, reason: null },
      backend: { ok: false, since, reason: 'the backend refused the hello: unknown device' },
      spool: { ok: true, since, reason: null },
    },
  });
  const board = describeBoard(doc({ services: { backend: doc().services.backend, device } }));
  const p = panel(board.panels, 'device');
  assert.equal(row(p, 'spool'), { label: 'spool', text: 'writable', tone: 'good', check: true });
  assert.equal(row(p, 'backend'), {
    label: 'backend',
    text: 'connected',
    tone: 'bad',
    check: true,
    detail: `since ${formatClock(since)}: the backend refused the hello: unknown device`,
  });
});

test('a failing check without since or reason has no detail; a long reason is cut; no judgement is muted', () => {
  const backend = service({
    name: 'backend',
    readiness: 'not_ready',
    checks: { database: 'disconnected', cache: 'cold', queue: 'odd' },
    details: {
      database: { ok: false, since: null, reason: null },
      cache: { ok: false, since: null, reason: 'x'.repeat(500) },
    },
  });
  const p = panel(describeBoard(doc({ services: { backend, device: null } })).panels, 'backend');
  assert.not.ok('detail' in row(p, 'database')!);
  assert.is(row(p, 'cache')!.detail, `${'x'.repeat(200)}…`);
  assert.is(row(p, 'queue')!.tone, 'muted');
});

test("the frontend's release and each service's release are shown", () => {
  const backend = service({ name: 'backend', checks: { database: 'connected' }, version: '0123456789ab' });
  const board = describeBoard(doc({ services: { backend, device: null } }));
  assert.is(board.release, 'rel-7');
  assert.is(row(panel(board.panels, 'backend'), 'Release')?.text, '0123456789ab');
  assert.is(row(panel(describeBoard(doc()).panels, 'backend'), 'Release'), undefined, 'none reported, none shown');
  assert.is(describeBoard(null).release, null);
});

test.run();
