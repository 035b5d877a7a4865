import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Hono } from 'hono';
import { createMetrics, serveMetrics } from './metrics.ts';
import { createReadiness } from './readiness.ts';

function setup() {
  const readiness = createReadiness();
  const setDatabase = readiness.define('database', { initial: 'disconnected', ready: ['connected'] });
  const { registry } = createMetrics({ readiness, processMetrics: false });
  const app = new Hono();
  app.get('/api/items/:id', (c) => c.text(c.req.param('id')));
  app.get('/api/plain', (c) => c.text('plain'));
  return { app: serveMetrics(app, registry), registry, readiness, setDatabase };
}

const lines = async (app: Hono, init?: RequestInit) => (await (await app.request('/metrics', init)).text()).split('\n');

test('readiness per check and overall, in the text format, following each change', async () => {
  const { app, setDatabase } = setup();
  const res = await app.request('/metrics');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  let text = (await res.text()).split('\n');
  assert.ok(text.includes('service_ready 0'));
  assert.ok(text.includes('service_check_ready{check="database"} 0'));
  assert.ok(text.includes('service_check_state{check="database",state="disconnected"} 1'));
  setDatabase('connected');
  text = await lines(app);
  assert.ok(text.includes('service_ready 1'));
  assert.ok(text.includes('service_check_ready{check="database"} 1'));
  // The state left keeps its series, at 0.
  assert.ok(text.includes('service_check_state{check="database",state="disconnected"} 0'));
  assert.ok(text.includes('service_check_state{check="database",state="connected"} 1'));
});

test('two apps in one process keep their own registries', async () => {
  const one = setup();
  const two = setup();
  one.setDatabase('connected');
  assert.ok((await lines(one.app)).includes('service_ready 1'));
  assert.ok((await lines(two.app)).includes('service_ready 0'));
});

test('requests are counted by method, route pattern and status; /metrics and its query are not', async () => {
  const { app } = setup();
  await app.request('/api/items/123?x=1');
  await app.request('/api/items/456');
  await app.request('/api/plain', { method: 'HEAD' });
  await app.request('/nowhere/789');
  await app.request('/metrics?debug=1');
  const counts = (await lines(app)).filter((l) => l.startsWith('http_request_duration_seconds_count'));
  assert.equal(counts.sort(), [
    'http_request_duration_seconds_count{method="GET",route="(unmatched)",status="404"} 1',
    'http_request_duration_seconds_count{method="GET",route="/api/items/:id",status="200"} 2',
    'http_request_duration_seconds_count{method="HEAD",route="/api/plain",status="200"} 1',
  ]);
});

test('HEAD: no body; POST: 405 with Allow; an Accept it cannot serve: 406; a query string: ignored', async () => {
  const { app } = setup();
  const head = await app.request('/metrics', { method: 'HEAD' });
  assert.is(head.status, 200);
  assert.is(await head.text(), '');
  const post = await app.request('/metrics', { method: 'POST' });
  assert.is(post.status, 405);
  assert.is(post.headers.get('allow'), 'GET, HEAD');
  assert.equal(await post.json(), { error: 'method POST is not allowed on /metrics; use GET or HEAD' });
  const json = await app.request('/metrics', { headers: { Accept: 'application/json' } });
  assert.is(json.status, 406);
  assert.equal(await json.json(), {
    error: '/metrics answers only text/plain (the Prometheus text format): send Accept: text/plain',
  });
  const prometheus = 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
  assert.is((await app.request('/metrics?format=json', { headers: { Accept: prometheus } })).status, 200);
});

test('without a registry (METRICS=off) the app is left as it was: /metrics is 404', async () => {
  const app = new Hono();
  assert.is(serveMetrics(app, undefined), app);
  assert.is((await app.request('/metrics')).status, 404);
});

test.run();
