import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp, defineDeviceChecks } from './app.ts';
import { createReadiness } from '../lib/readiness.ts';
import { createLogSink } from '../test/support/log-sink.ts';
import { emptyReadingStats } from '../test/support/reading-stats.ts';

function setup(environment = 'production') {
  const readiness = createReadiness();
  const checks = defineDeviceChecks(readiness);
  const sink = createLogSink();
  const backlog = emptyReadingStats();
  const readings = { stats: () => ({ ...backlog }) };
  const app = createApp({ readiness, environment, version: 'rel-7', log: sink.log, readings });
  return { app, readiness, sink, backlog, ...checks };
}

test('starts not ready, naming both dependencies as disconnected', async () => {
  const { app } = setup();
  const res = await app.request('/api/ready');
  assert.is(res.status, 503);
  const body = await res.json();
  assert.is(body.status, 'not_ready');
  assert.equal(body.checks, { serial: 'disconnected', backend: 'disconnected', spool: 'writable', acks: 'ok' });
});

test('liveness reports the release; readiness details judge writable as fine, as the checks declare it', async () => {
  const { app, setSpool } = setup();
  assert.is((await (await app.request('/api/health')).json()).version, 'rel-7');
  let body = await (await app.request('/api/ready')).json();
  assert.equal(Object.fromEntries(Object.entries(body.details).map(([name, d]: [string, any]) => [name, d.ok])), {
    serial: false,
    backend: false,
    spool: true,
    acks: true,
  });
  setSpool('unwritable');
  body = await (await app.request('/api/ready')).json();
  assert.is(body.details.spool.ok, false);
  assert.is((await app.request('/api/ready/spool')).status, 503);
});

test('ready with a connected port or the emulator, and the backend connected', async () => {
  const { app, setSerial, setBackend } = setup();
  setBackend('connected');
  setSerial('connected');
  let res = await app.request('/api/ready');
  assert.is(res.status, 200);
  assert.equal(await res.json().then((b) => [b.status, b.checks]), [
    'ready',
    { serial: 'connected', backend: 'connected', spool: 'writable', acks: 'ok' },
  ]);
  setSerial('emulator');
  res = await app.request('/api/ready');
  assert.is(res.status, 200);
  assert.is((await res.json()).checks.serial, 'emulator');
});

test('503 names whichever dependency failed', async () => {
  const { app, setSerial, setBackend } = setup();
  setSerial('connected');
  setBackend('connected');
  setBackend('disconnected');
  let body = await (await app.request('/api/ready')).json();
  assert.equal(body.checks, { serial: 'connected', backend: 'disconnected', spool: 'writable', acks: 'ok' });
  setBackend('connected');
  setSerial('disconnected');
  const res = await app.request('/api/ready');
  assert.is(res.status, 503);
  body = await res.json();
  assert.equal(body.checks, { serial: 'disconnected', backend: 'connected', spool: 'writable', acks: 'ok' });
});

test('a spool that cannot be written turns readiness 503, naming it; writable again, ready again', async () => {
  const { app, setSerial, setBackend, setSpool } = setup();
  setSerial('connected');
  setBackend('connected');
  setSpool('unwritable');
  const res = await app.request('/api/ready');
  assert.is(res.status, 503);
  assert.equal((await res.json()).checks, {
    serial: 'connected',
    backend: 'connected',
    spool: 'unwritable',
    acks: 'ok',
  });
  setSpool('writable');
  assert.is((await app.request('/api/ready')).status, 200);
});

test('a backend that acknowledges nothing of what the device holds turns readiness 503, naming acks', async () => {
  const { app, setSerial, setBackend, setAcks } = setup();
  setSerial('connected');
  setBackend('connected');
  setAcks('stalled');
  const res = await app.request('/api/ready');
  assert.is(res.status, 503);
  assert.equal((await res.json()).checks, {
    serial: 'connected',
    backend: 'connected',
    spool: 'writable',
    acks: 'stalled',
  });
  setAcks('ok');
  assert.is((await app.request('/api/ready')).status, 200);
});

test('liveness is 200 with the environment whatever the dependencies say', async () => {
  const { app } = setup('local');
  const res = await app.request('/api/health');
  assert.is(res.status, 200);
  const body = await res.json();
  assert.is(body.status, 'ok');
  assert.is(body.environment, 'local');
});

test('shutting down turns readiness 503 even with everything connected', async () => {
  const { app, readiness, setSerial, setBackend } = setup();
  setSerial('connected');
  setBackend('connected');
  readiness.shutDown();
  const res = await app.request('/api/ready');
  assert.is(res.status, 503);
  assert.is((await res.json()).status, 'shutting_down');
});

test('request log lines carry req; unknown paths are a JSON 404', async () => {
  const { app, sink } = setup();
  const res = await app.request('/api/nothing');
  assert.is(res.status, 404);
  assert.equal(await res.json(), { error: 'no route for GET /api/nothing' });
  await app.request('/api/ready');
  const requests = sink.find('request completed');
  assert.is(requests.length, 2);
  assert.equal(requests[0]!.req, { method: 'GET', url: '/api/nothing' });
  assert.is(requests[1]!.req.url, '/api/ready');
  assert.is(requests[1]!.res.statusCode, 503);
});

test('liveness reports the spool backlog as readings, and follows it', async () => {
  const { app, backlog } = setup();
  const reported = async () => (await (await app.request('/api/health')).json()).readings;
  assert.equal(await reported(), emptyReadingStats());
  const later = { unacknowledged: 12, spoolBytes: 3456, dropped: 7, unwritten: 2, refused: 1, declaredLost: 9 };
  Object.assign(backlog, later);
  assert.equal(await reported(), later);
});

test.run();
