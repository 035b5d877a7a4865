// The backend's routes in-process through app.request(): no socket, no database, readiness set by hand.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from './app.ts';
import { createDeviceHub } from './device-hub.ts';
import { createReadiness } from '../lib/readiness.ts';
import { createLogger } from '../lib/logger.ts';

function setup({ withDevices = true } = {}) {
  const lines: Record<string, any>[] = [];
  const log = createLogger({
    name: 'backend',
    environment: 'production',
    level: 'debug',
    stream: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  const readiness = createReadiness();
  const setDatabase = readiness.define('database', { initial: 'disconnected', ready: ['connected'] });
  const devices = withDevices ? createDeviceHub({ log, token: '0123456789abcdef0123' }) : undefined;
  const app = createApp({ readiness, environment: 'staging', log, databaseName: 'shop', devices });
  return { app, readiness, setDatabase, lines };
}

test('GET /api/health: 200 while the database is down, naming it and its state, never cached', async () => {
  const { app, setDatabase } = setup();
  let res = await app.request('/api/health');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/json');
  assert.is(res.headers.get('cache-control'), 'no-store');
  const body = await res.json();
  assert.equal(Object.keys(body), ['status', 'timestamp', 'uptime', 'environment', 'database']);
  assert.is(body.status, 'ok');
  assert.ok(Math.abs(Date.parse(body.timestamp) - Date.now()) < 60_000, body.timestamp);
  assert.type(body.uptime, 'number');
  assert.is(body.environment, 'staging');
  assert.equal(body.database, { status: 'disconnected', name: 'shop' });
  setDatabase('connected');
  res = await app.request('/api/health');
  assert.equal((await res.json()).database, { status: 'connected', name: 'shop' });
});

test('GET /api/ready: 503 until the database connects, 200 then, 503 shutting_down after shutDown', async () => {
  const { app, readiness, setDatabase } = setup();
  let res = await app.request('/api/ready');
  assert.is(res.status, 503);
  assert.is(res.headers.get('cache-control'), 'no-store');
  let body = await res.json();
  assert.is(body.status, 'not_ready');
  assert.equal(body.checks, { database: 'disconnected' });
  setDatabase('connected');
  res = await app.request('/api/ready');
  assert.is(res.status, 200);
  body = await res.json();
  assert.equal([body.status, body.checks], ['ready', { database: 'connected' }]);
  readiness.shutDown();
  res = await app.request('/api/ready');
  assert.is(res.status, 503);
  assert.is((await res.json()).status, 'shutting_down');
});

test('any other method on the probes: 405 with Allow: GET, HEAD and a JSON reason', async () => {
  const { app } = setup();
  for (const path of ['/api/health', '/api/ready']) {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const res = await app.request(path, { method });
      assert.is(res.status, 405, `${method} ${path}`);
      assert.is(res.headers.get('allow'), 'GET, HEAD');
      assert.equal(await res.json(), { error: `method ${method} is not allowed on ${path}; use GET or HEAD` });
    }
  }
});

test("GET /api/devices: the hub's list, never cached; without a hub there is no such route", async () => {
  const res = await setup().app.request('/api/devices');
  assert.is(res.status, 200);
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.equal(await res.json(), { devices: [] });
  const without = await setup({ withDevices: false }).app.request('/api/devices');
  assert.is(without.status, 404);
  assert.equal(await without.json(), { error: 'no route for GET /api/devices' });
});

test('an unknown route: 404 in JSON, logged at info; passing probes only at debug', async () => {
  const { app, setDatabase, lines } = setup();
  setDatabase('connected');
  const res = await app.request('/nope?x=1');
  assert.is(res.status, 404);
  assert.equal(await res.json(), { error: 'no route for GET /nope' });
  await app.request('/api/ready');
  const levels = lines.map((l) => [l.level, l.req?.url, l.res?.statusCode]);
  assert.equal(levels, [
    [30, '/nope', 404],
    [20, '/api/ready', 200],
  ]);
});

test.run();
