import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createStatusCollector } from './status-collector.ts';
import { ATTENTION_LIMIT, CHARTED_DEVICES, DEVICE_LIST_MAX_BYTES, FLEET_PAGE } from './device-readings.ts';
import { healthyBody, readyBody, startFakeService, type FakeRoute } from '../test/support/fake-http-server.ts';
import { withDeadline } from '../test/support/deadline.ts';
import { listen, type Listening } from '../test/support/listen.ts';
import type { RequestListener } from 'node:http';
import { deviceEntry, fakeReadings } from '../test/support/fake-readings.ts';
import { SHOWN_VALUE_MAX } from './reading-value.ts';
import { devicesApi, fakeFleet } from '../test/support/fake-devices-api.ts';

const open: Listening[] = [];
const fake = async (routes: Record<string, FakeRoute>) => {
  const service = await startFakeService(routes);
  open.push(service);
  return service;
};
test.after.each(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const reading = (seq: number, timestamp: string, value: string) => ({ seq, timestamp, value });
const healthyBackend = (devices: unknown = { devices: [] }) =>
  fake({
    '/api/health': { status: 200, body: healthyBody() },
    '/api/ready': { status: 200, body: readyBody('ready', { database: 'connected' }) },
    '/api/devices': { status: 200, body: devices },
  });
const healthyDevice = () =>
  fake({
    '/api/health': { status: 200, body: healthyBody({ environment: 'local' }) },
    '/api/ready': { status: 200, body: readyBody('ready', { serial: 'emulator', backend: 'connected' }) },
  });

/**
 * One status document from these upstreams, under a deadline past the collector's own timeout: the one way each
 * test here asks for one.
 */
const collectFrom = (
  { backend, device }: { backend: { url: string }; device?: { url: string } },
  timeoutMs = 1000,
  what = 'status document',
) => {
  const collector = createStatusCollector({
    version: 'rel-7',
    backendUrl: backend.url,
    deviceUrl: device?.url,
    timeoutMs,
  });
  return withDeadline(collector.collect(), timeoutMs * 2 + 5000, what);
};

test('both services ready: overall ready, with the latest reading across devices', async () => {
  const backend = await healthyBackend({
    devices: [
      { deviceId: 'old', session: 's1', connected: false, lastReading: reading(7, '2026-01-01T10:00:00.000Z', '20.1') },
      {
        deviceId: 'emulator-1',
        session: 's2',
        connected: true,
        lastReading: reading(42, '2026-01-01T10:00:05.000Z', '21.5'),
      },
      { deviceId: 'silent', session: 's3', connected: true, lastReading: null },
    ],
  });
  const device = await healthyDevice();
  const asked = Date.now();
  const doc = await collectFrom({ backend: backend, device: device });
  const collected = Date.now();
  assert.is(doc.overall, 'ready');
  assert.is(doc.timeoutMs, 1000);
  const checkedAt = Date.parse(doc.checkedAt);
  assert.ok(checkedAt >= asked && checkedAt <= collected, `the time of this collection, not ${doc.checkedAt}`);
  assert.is(doc.services.backend.readiness, 'ready');
  assert.equal(doc.services.device?.checks, { serial: 'emulator', backend: 'connected' });
  assert.is(doc.services.device?.environment, 'local');
  assert.is(doc.readings.available, true);
  assert.is(doc.readings.devices.length, 3);
  assert.equal(doc.readings.latest, {
    deviceId: 'emulator-1',
    connected: true,
    seq: 42,
    timestamp: '2026-01-01T10:00:05.000Z',
    receivedAt: '2026-01-01T10:00:05.000Z',
    value: '21.5',
  });
});

test("the latest reading across devices is the one received last, whatever the devices' clocks say", async () => {
  const received = (seq: number, timestamp: string, receivedAt: string) => ({ seq, timestamp, receivedAt, value: 'v' });
  const backend = await healthyBackend({
    devices: [
      // Its clock went back a day: read "yesterday", received last.
      {
        deviceId: 'behind',
        connected: true,
        lastReading: received(3, '2025-12-31T10:00:09.000Z', '2026-01-01T10:00:09.000Z'),
      },
      // Its clock runs an hour ahead: read "later", received earlier.
      {
        deviceId: 'ahead',
        connected: true,
        lastReading: received(8, '2026-01-01T11:00:08.000Z', '2026-01-01T10:00:08.000Z'),
      },
      {
        deviceId: 'right',
        connected: true,
        lastReading: received(5, '2026-01-01T10:00:07.000Z', '2026-01-01T10:00:07.000Z'),
      },
    ],
  });
  const doc = await collectFrom({ backend: backend });
  assert.equal(doc.readings.latest, {
    deviceId: 'behind',
    connected: true,
    ...received(3, '2025-12-31T10:00:09.000Z', '2026-01-01T10:00:09.000Z'),
  });
});

test('a hung device service: the document arrives and marks only it unreachable, naming the timeout', async () => {
  const backend = await healthyBackend();
  const hung = await fake({ '/api/health': 'hang', '/api/ready': 'hang' });
  const doc = await collectFrom({ backend: backend, device: hung }, 400, 'status document with a hung device service');
  assert.is(doc.overall, 'degraded');
  assert.is(doc.services.backend.readiness, 'ready');
  assert.is(doc.services.device?.liveness, 'unreachable');
  assert.is(doc.services.device?.readiness, 'unreachable');
  assert.is(doc.services.device?.problem, 'unreachable: no response within 400ms');
  assert.equal(hung.hits.sort(), ['/api/health', '/api/ready']);
});

test('every probe at once: upstreams that answer only when all six requests are in still get answers', async () => {
  // Probes one after another would leave the first waiting for the others until its timeout.
  const held: Array<() => void> = [];
  const EXPECTED = 6; // health and readiness of both services, the backend's device list and its attention list
  const answers: Record<string, unknown> = {
    '/api/health': healthyBody(),
    '/api/ready': readyBody('ready', {}),
    '/api/devices': { devices: [] },
  };
  const rendezvous: RequestListener = (req, res) => {
    const path = new URL(req.url!, 'http://upstream').pathname;
    held.push(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answers[path])));
    if (held.length === EXPECTED) held.forEach((answer) => answer());
    if (held.length > EXPECTED) held.at(-1)!();
  };
  const [backend, device] = await Promise.all([listen(rendezvous), listen(rendezvous)]);
  open.push(backend, device);
  const doc = await collectFrom(
    { backend: backend, device: device },
    3000,
    'status document from the rendezvous upstreams',
  );
  assert.is(held.length, EXPECTED);
  assert.equal([doc.services.backend.problem, doc.services.device?.problem, doc.readings.problem], [null, null, null]);
  assert.is(doc.overall, 'ready');
});

test('DEVICE_URL empty: no device probes, the device is null and does not spoil the verdict', async () => {
  const backend = await healthyBackend();
  const doc = await collectFrom({ backend: backend });
  assert.is(doc.services.device, null);
  assert.is(doc.overall, 'ready');
});

test('a backend without /api/devices: readings unavailable with a reason, services unaffected', async () => {
  const backend = await fake({
    '/api/health': { status: 200, body: healthyBody() },
    '/api/ready': { status: 200, body: readyBody('ready', { database: 'connected' }) },
  });
  const doc = await collectFrom({ backend: backend });
  assert.is(doc.overall, 'ready');
  assert.equal(doc.readings, {
    available: false,
    problem: 'device list: backend answered HTTP 404 without a device list',
    total: 0,
    devices: [],
    attention: { available: false, problem: null, devices: [] },
    latest: null,
  });
});

test('malformed device entries are skipped, malformed readings become null', async () => {
  const backend = await healthyBackend({
    devices: [
      { deviceId: 'ok', connected: true, lastReading: { seq: 'x', timestamp: 'never', value: 3 } },
      { connected: true },
      'nonsense',
    ],
  });
  const doc = await collectFrom({ backend: backend });
  assert.equal(doc.readings.devices, [
    {
      deviceId: 'ok',
      connected: true,
      lastReading: null,
      readingsStored: null,
      readingsLost: null,
      backlog: null,
      lastSeenAt: null,
      recent: {
        available: false,
        problem: 'readings: backend answered HTTP 404: not found',
        series: { name: null, points: [] },
      },
    },
  ]);
  assert.is(doc.readings.latest, null);
});

const readingsPath = (deviceId: string) => `/api/readings?deviceId=${encodeURIComponent(deviceId)}&limit=60`;

test("each device's latest 60 readings become its series, oldest first, of the numbers they carry", async () => {
  const newest = new Date('2026-01-01T10:00:59.000Z');
  const emulator = fakeReadings({ deviceId: 'emulator-1', count: 60, newest });
  // A free-text id goes into the query encoded.
  const lab = fakeReadings({ deviceId: 'lab sensor/2&x', count: 2, newest, value: (i) => (i ? '7.5 C' : 'error') });
  const backend = await healthyBackend({ devices: [deviceEntry(emulator), deviceEntry(lab, false)] });
  backend.routes[readingsPath('emulator-1')] = { status: 200, body: { readings: emulator } };
  backend.routes[readingsPath('lab sensor/2&x')] = { status: 200, body: { readings: lab } };
  const doc = await collectFrom({ backend: backend });
  const [e, l] = doc.readings.devices;
  assert.is(e?.readingsStored, 60);
  assert.is(e?.recent?.available, true);
  assert.is(e?.recent?.series.name, 'temperature_c');
  assert.is(e?.recent?.series.points.length, 60);
  assert.equal(e?.recent?.series.points[0], {
    timestamp: '2026-01-01T10:00:00.000Z',
    receivedAt: '2026-01-01T10:00:00.005Z',
    number: 21,
  });
  assert.equal(e?.recent?.series.points[59], {
    timestamp: '2026-01-01T10:00:59.000Z',
    receivedAt: '2026-01-01T10:00:59.005Z',
    number: Number(emulator[0]!.value.split('=')[1]),
  });
  assert.equal(l?.recent, {
    available: true,
    problem: null,
    series: {
      name: null,
      points: [
        { timestamp: '2026-01-01T10:00:58.000Z', receivedAt: '2026-01-01T10:00:58.005Z', number: null },
        { timestamp: '2026-01-01T10:00:59.000Z', receivedAt: '2026-01-01T10:00:59.005Z', number: 7.5 },
      ],
    },
  });
  assert.ok(backend.urls.includes('/api/readings?deviceId=lab%20sensor%2F2%26x&limit=60'), backend.urls.join(' '));
});

test("one device's readings failing is that device's alone: each says why; the document still arrives", async () => {
  const ok = fakeReadings({ deviceId: 'ok', count: 3, newest: new Date() });
  const ids = ['ok', 'refused', 'hung', 'dropped', 'garbage', 'stalled'];
  const backend = await healthyBackend({ devices: ids.map((deviceId) => ({ deviceId, connected: true })) });
  Object.assign(backend.routes, {
    [readingsPath('ok')]: { status: 200, body: { readings: ok } },
    [readingsPath('refused')]: { status: 503, body: { error: 'database unavailable:\n  not connected' } },
    [readingsPath('hung')]: 'hang',
    [readingsPath('dropped')]: 'drop',
    [readingsPath('garbage')]: { status: 200, body: { readings: 'none' } },
    [readingsPath('stalled')]: 'stall-body',
  });
  const device = await healthyDevice();
  const doc = await collectFrom({ backend: backend, device: device }, 400, 'status document with failing readings');
  assert.is(doc.overall, 'ready');
  assert.is(doc.readings.available, true);
  const problems = Object.fromEntries(doc.readings.devices.map((d) => [d.deviceId, d.recent?.problem]));
  // How a dropped connection is worded is probe.ts's business; that it is this device's problem is ours.
  assert.match(problems.dropped ?? '', /^readings: connection (reset|closed)/);
  assert.equal(
    { ...problems, dropped: '' },
    {
      ok: null,
      refused: 'readings: backend answered HTTP 503: database unavailable: not connected',
      hung: 'readings: no response within 400ms',
      dropped: '',
      garbage: 'readings: backend answered HTTP 200 without a readings list',
      stalled: 'readings: body not complete within 400ms (15 bytes received)',
    },
  );
  assert.is(doc.readings.devices[0]?.recent?.series.points.length, 3);
});

test('only the first 8 devices are asked for their readings; the rest carry no series', async () => {
  const devices = Array.from({ length: 12 }, (_, i) => ({ deviceId: `d${i}`, connected: true, lastReading: null }));
  const backend = await healthyBackend({ devices });
  backend.routes['/api/readings'] = { status: 200, body: { readings: [] } };
  const doc = await collectFrom({ backend: backend });
  assert.equal(
    backend.urls.filter((u) => u.startsWith('/api/readings')).sort(),
    Array.from({ length: 8 }, (_, i) => readingsPath(`d${i}`)).sort(),
  );
  assert.equal(
    doc.readings.devices.map((d) => d.recent?.available ?? null),
    [true, true, true, true, true, true, true, true, null, null, null, null],
  );
});

test("the device service's backlog, from its liveness body", async () => {
  const backend = await healthyBackend();
  const device = await healthyDevice();
  device.routes['/api/health'] = {
    status: 200,
    body: healthyBody({ environment: 'local', readings: { unacknowledged: 17, spoolBytes: 2048, dropped: 0 } }),
  };
  const doc = await collectFrom({ backend: backend, device: device });
  assert.equal(doc.services.device?.backlog, { unacknowledged: 17, spoolBytes: 2048, dropped: 0 });
  assert.is(doc.services.backend.backlog, null);
});

test('a down backend: degraded, backend and readings unreachable', async () => {
  const gone = await fake({});
  await gone.close();
  const device = await healthyDevice();
  const doc = await collectFrom({ backend: gone, device: device });
  assert.is(doc.overall, 'degraded');
  assert.is(doc.services.backend.liveness, 'unreachable');
  assert.is(doc.services.device?.readiness, 'ready');
  assert.is(
    doc.readings.problem,
    `device list: connection refused at 127.0.0.1:${gone.port} (is the service running?)`,
  );
});

test('a backend whose every answer streams without end: the document arrives, each part capped', async () => {
  const endless = await fake({
    '/api/health': 'endless-body',
    '/api/ready': 'endless-body',
    '/api/devices': 'endless-body',
  });
  const doc = await collectFrom({ backend: endless }, 5000, 'status document with an endless backend');
  assert.is(doc.services.backend.problem, 'unreachable: body too large: more than 65536 bytes');
  assert.is(doc.readings.problem, `device list: body too large: more than ${DEVICE_LIST_MAX_BYTES} bytes`);
});

test('a device list past the health-body cap is still read whole', async () => {
  const value = 'x'.repeat(500);
  const devices = Array.from({ length: 400 }, (_, i) => ({
    deviceId: `d${i}`,
    session: 's',
    connected: true,
    lastReading: reading(i, new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), value),
  }));
  assert.ok(JSON.stringify({ devices }).length > 128 * 1024, 'the list is larger than a health body may be');
  const backend = await healthyBackend({ devices });
  const doc = await collectFrom({ backend: backend }, 2000);
  assert.is(doc.readings.available, true, doc.readings.problem ?? '');
  assert.is(doc.readings.devices.length, 400);
  assert.is(doc.readings.latest?.deviceId, 'd399');
});

test('90 devices of 8 KiB control-character values (6× that served): read whole, each value kept cut', async () => {
  const value = '\u0001'.repeat(8 * 1024);
  const devices = Array.from({ length: 90 }, (_, i) => ({
    deviceId: `d${i}`,
    session: 's',
    connected: true,
    lastReading: reading(i + 1, new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), value),
  }));
  const served = Buffer.byteLength(JSON.stringify({ devices }));
  assert.ok(served > 4_000_000, `the list is ${served} bytes served`);
  const backend = await healthyBackend({ devices });
  backend.routes['/api/readings'] = { status: 200, body: { readings: [] } };
  const doc = await collectFrom({ backend: backend }, 5000);
  assert.is(doc.readings.available, true, doc.readings.problem ?? '');
  assert.is(doc.readings.devices.length, 90);
  for (const device of [...doc.readings.devices, doc.readings.latest!]) {
    const last = 'lastReading' in device ? device.lastReading! : device;
    assert.equal([last.value, last.cutFrom], [`${'\u0001'.repeat(SHOWN_VALUE_MAX)}…`, 8192]);
  }
  // What the frontend keeps and serves is bounded by the cut, not by what the backend sent.
  const kept = Buffer.byteLength(JSON.stringify(doc));
  // About a KiB a device: its cut value JSON-escaped (six bytes a control character), and its fields.
  assert.ok(kept < 100 * 1024, `the status document is ${kept} bytes`);
});

test('concurrent callers share one round of probes; the next call probes again', async () => {
  const backend = await healthyBackend();
  const collector = createStatusCollector({ version: 'rel-7', backendUrl: backend.url, timeoutMs: 1000 });
  const [a, b, c] = await Promise.all([collector.collect(), collector.collect(), collector.collect()]);
  assert.ok(a === b && b === c);
  assert.is(backend.hits.length, 4); // health, ready, the device list and the attention list: once
  await collector.collect();
  assert.is(backend.hits.length, 8);
});

test('a fleet of 2,500: the first page, the total, the devices needing attention as ranked', async () => {
  const heard = new Date('2026-01-01T10:00:00.000Z');
  const fleet = fakeFleet(2500, heard);
  fleet[2000] = { ...fleet[2000]!, backlog: 40 };
  fleet[1500] = { ...fleet[1500]!, backlog: 900 };
  fleet[700] = { ...fleet[700]!, connected: false, lastSeenAt: '2026-01-01T09:00:00.000Z' };
  const backend = await healthyBackend();
  backend.routes['/api/devices'] = devicesApi(fleet);
  const doc = await collectFrom({ backend: backend }, 2000);
  const { readings } = doc;
  assert.is(readings.available, true, readings.problem ?? '');
  assert.is(readings.total, 2500);
  assert.equal(
    readings.devices.map((d) => d.deviceId),
    fleet.slice(0, FLEET_PAGE).map((d) => d.deviceId),
  );
  assert.equal(readings.attention.available, true);
  assert.equal(
    readings.attention.devices.map((d) => [d.deviceId, d.connected, d.backlog, d.lastSeenAt]),
    [
      ['unit-01501', true, 900, heard.toISOString()],
      ['unit-02001', true, 40, heard.toISOString()],
      ['unit-00701', false, 0, '2026-01-01T09:00:00.000Z'],
      ['unit-00001', true, 0, heard.toISOString()],
      ['unit-00002', true, 0, heard.toISOString()],
    ],
  );
  assert.equal(backend.urls.filter((url) => url.startsWith('/api/devices')).sort(), [
    `/api/devices?attention=${ATTENTION_LIMIT}`,
    `/api/devices?limit=${FLEET_PAGE}`,
  ]);
  const charted = readings.devices.filter((d) => d.recent !== null).length;
  assert.is(charted, CHARTED_DEVICES, 'readings are asked for the first few devices only');
});

test('an attention list that fails is that list alone: the page of devices still arrives', async () => {
  const backend = await healthyBackend({ devices: [{ deviceId: 'a', connected: true }], total: 1 });
  backend.routes['/api/devices?attention=5'] = { status: 400, body: { error: 'attention: unknown parameter' } };
  const doc = await collectFrom({ backend: backend });
  assert.equal([doc.readings.available, doc.readings.total, doc.readings.devices.length], [true, 1, 1]);
  assert.equal(doc.readings.attention, {
    available: false,
    problem: 'attention list: backend answered HTTP 400 without a device list',
    devices: [],
  });
});

test('BACKEND_READ_TOKEN: the read token goes to /api/devices and /api/readings, never to the probes', async () => {
  const seen: string[] = [];
  const backend = await listen((req, res) => {
    seen.push(`${req.url!.split('?')[0]} ${req.headers.authorization ?? '-'}`);
    const path = req.url!.split('?')[0];
    const body =
      path === '/api/devices'
        ? { total: 1, devices: [{ deviceId: 'dev-1', connected: true }], next: null }
        : path === '/api/readings'
          ? { readings: [] }
          : path === '/api/ready'
            ? readyBody('ready', { database: 'connected' })
            : healthyBody();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  open.push(backend);
  const token = 'read-token-0123456789abcdef';
  const doc = await createStatusCollector({
    version: 'rel-7',
    backendUrl: backend.url,
    timeoutMs: 2000,
    backendReadToken: token,
  }).collect();
  assert.is(doc.readings.available, true);
  assert.equal([...new Set(seen)].sort(), [
    '/api/devices Bearer read-token-0123456789abcdef',
    '/api/health -',
    '/api/readings Bearer read-token-0123456789abcdef',
    '/api/ready -',
  ]);
});

test.run();
