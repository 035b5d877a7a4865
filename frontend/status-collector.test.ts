import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createStatusCollector } from './status-collector.ts';
import { DEVICE_LIST_MAX_BYTES } from './device-readings.ts';
import {
  healthyBody,
  readyBody,
  startFakeService,
  type FakeService,
  type FakeRoute,
} from '../test/support/fake-http-server.ts';
import { withDeadline } from '../test/support/deadline.ts';

const open: FakeService[] = [];
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
  const doc = await createStatusCollector({
    backendUrl: backend.url,
    deviceUrl: device.url,
    timeoutMs: 1000,
  }).collect();
  assert.is(doc.overall, 'ready');
  assert.is(doc.timeoutMs, 1000);
  assert.ok(Math.abs(Date.parse(doc.checkedAt) - Date.now()) < 5000);
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
    value: '21.5',
  });
});

test('a hung device service: the document arrives within the timeout and marks only it unreachable', async () => {
  const backend = await healthyBackend();
  const hung = await fake({ '/api/health': 'hang', '/api/ready': 'hang' });
  const collector = createStatusCollector({ backendUrl: backend.url, deviceUrl: hung.url, timeoutMs: 400 });
  const started = Date.now();
  const doc = await withDeadline(collector.collect(), 3000, 'status document with a hung device service');
  const took = Date.now() - started;
  assert.ok(took >= 380 && took < 1500, `took ${took} ms (probes must run in parallel, each bounded by 400 ms)`);
  assert.is(doc.overall, 'degraded');
  assert.is(doc.services.backend.readiness, 'ready');
  assert.is(doc.services.device?.liveness, 'unreachable');
  assert.is(doc.services.device?.readiness, 'unreachable');
  assert.is(doc.services.device?.problem, 'unreachable: no response within 400ms');
  assert.equal(hung.hits.sort(), ['/api/health', '/api/ready']);
});

test('DEVICE_URL empty: no device probes, the device is null and does not spoil the verdict', async () => {
  const backend = await healthyBackend();
  const doc = await createStatusCollector({ backendUrl: backend.url, timeoutMs: 1000 }).collect();
  assert.is(doc.services.device, null);
  assert.is(doc.overall, 'ready');
});

test('a backend without /api/devices: readings unavailable with a reason, services unaffected', async () => {
  const backend = await fake({
    '/api/health': { status: 200, body: healthyBody() },
    '/api/ready': { status: 200, body: readyBody('ready', { database: 'connected' }) },
  });
  const doc = await createStatusCollector({ backendUrl: backend.url, timeoutMs: 1000 }).collect();
  assert.is(doc.overall, 'ready');
  assert.equal(doc.readings, {
    available: false,
    problem: 'device list: backend answered HTTP 404 without a device list',
    devices: [],
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
  const doc = await createStatusCollector({ backendUrl: backend.url, timeoutMs: 1000 }).collect();
  assert.equal(doc.readings.devices, [{ deviceId: 'ok', connected: true, lastReading: null }]);
  assert.is(doc.readings.latest, null);
});

test('a down backend: degraded, backend and readings unreachable', async () => {
  const gone = await fake({});
  await gone.close();
  const device = await healthyDevice();
  const doc = await createStatusCollector({ backendUrl: gone.url, deviceUrl: device.url, timeoutMs: 1000 }).collect();
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
  const collector = createStatusCollector({ backendUrl: endless.url, timeoutMs: 5000 });
  const doc = await withDeadline(collector.collect(), 10_000, 'status document with an endless backend');
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
  const doc = await createStatusCollector({ backendUrl: backend.url, timeoutMs: 2000 }).collect();
  assert.is(doc.readings.available, true, doc.readings.problem ?? '');
  assert.is(doc.readings.devices.length, 400);
  assert.is(doc.readings.latest?.deviceId, 'd399');
});

test('concurrent callers share one round of probes; the next call probes again', async () => {
  const backend = await healthyBackend();
  const collector = createStatusCollector({ backendUrl: backend.url, timeoutMs: 1000 });
  const [a, b, c] = await Promise.all([collector.collect(), collector.collect(), collector.collect()]);
  assert.ok(a === b && b === c);
  assert.is(backend.hits.length, 3); // health, ready, devices: once
  await collector.collect();
  assert.is(backend.hits.length, 6);
});

test.run();
