import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHealthRoutes } from './health-routes.ts';
import { createReadiness } from './readiness.ts';

function setup() {
  const readiness = createReadiness();
  const setDatabase = readiness.define('database', { initial: 'disconnected', ready: ['connected'] });
  const app = createHealthRoutes({ readiness, environment: 'production', details: () => ({ extra: 1 }) });
  return { app, readiness, setDatabase };
}

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

test('GET /api/health is 200 with the liveness fields and no-store JSON headers', async () => {
  const { app } = setup();
  const res = await app.request('/api/health');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/json');
  assert.is(res.headers.get('cache-control'), 'no-store');
  const body = await res.json();
  assert.is(body.status, 'ok');
  assert.match(body.timestamp, ISO_UTC);
  assert.type(body.uptime, 'number');
  assert.ok(body.uptime > 0);
  assert.is(body.environment, 'production');
  assert.is(body.extra, 1);
});

test('liveness stays 200 while readiness is 503', async () => {
  const { app } = setup();
  assert.is((await app.request('/api/ready')).status, 503);
  assert.is((await app.request('/api/health')).status, 200);
});

test('GET /api/ready names the failing check, then turns 200 when it recovers', async () => {
  const { app, setDatabase } = setup();
  let res = await app.request('/api/ready');
  assert.is(res.status, 503);
  let body = await res.json();
  assert.is(body.status, 'not_ready');
  assert.equal(body.checks, { database: 'disconnected' });
  assert.match(body.timestamp, ISO_UTC);
  setDatabase('connected');
  res = await app.request('/api/ready');
  assert.is(res.status, 200);
  body = await res.json();
  assert.equal(body, { status: 'ready', timestamp: body.timestamp, checks: { database: 'connected' } });
  assert.is(res.headers.get('cache-control'), 'no-store');
});

test('shutting down turns readiness 503 with status shutting_down; liveness stays 200', async () => {
  const { app, readiness, setDatabase } = setup();
  setDatabase('connected');
  readiness.shutDown();
  const res = await app.request('/api/ready');
  assert.is(res.status, 503);
  assert.is((await res.json()).status, 'shutting_down');
  assert.is((await app.request('/api/health')).status, 200);
});

test('HEAD is answered like GET, without a body', async () => {
  const { app } = setup();
  const health = await app.request('/api/health', { method: 'HEAD' });
  assert.is(health.status, 200);
  assert.is(await health.text(), '');
  const ready = await app.request('/api/ready', { method: 'HEAD' });
  assert.is(ready.status, 503);
  assert.is(await ready.text(), '');
});

for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
  test(`${method} gets 405 with Allow: GET, HEAD`, async () => {
    const { app } = setup();
    for (const path of ['/api/health', '/api/ready']) {
      const res = await app.request(path, { method });
      assert.is(res.status, 405, path);
      assert.is(res.headers.get('allow'), 'GET, HEAD');
      assert.match((await res.json()).error, `method ${method} is not allowed`);
    }
  });
}

test('environment is reported as given', async () => {
  const readiness = createReadiness();
  const app = createHealthRoutes({ readiness, environment: 'local' });
  assert.is((await (await app.request('/api/health')).json()).environment, 'local');
});

test('details follow what they show, and are serialized again only when that changes', async () => {
  const readiness = createReadiness();
  const set = readiness.define('thing', { initial: 'down', ready: ['up'] });
  let backlog = 1;
  let serialized = 0;
  // toJSON is not enumerable: not part of what the details show, only a count of the serializations.
  const counted = (value: number) =>
    Object.defineProperty({ value }, 'toJSON', { value: () => (serialized++, value), enumerable: false });
  const app = createHealthRoutes({
    readiness,
    environment: 'production',
    details: () => ({ backlog: counted(backlog) }),
  });
  const health = async () => (await (await app.request('/api/health')).json()) as { backlog: number };
  assert.is((await health()).backlog, 1);
  assert.is((await health()).backlog, 1);
  backlog = 2;
  assert.is((await health()).backlog, 2, 'a change is shown at once');
  set('up');
  assert.is((await health()).backlog, 2);
  await health();
  assert.is(serialized, 2, 'serialized once per change, not per probe');
});

test.run();
