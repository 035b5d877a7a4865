import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Hono } from 'hono';
import { Registry } from 'prom-client';
import { answerErrorsInJson } from './json-errors.ts';
import { createManagementApp } from './management-app.ts';
import { createLogSink } from '../test/support/log-sink.ts';

const logs = createLogSink('error', 'backend');
const app = () => {
  const a = new Hono();
  a.get('/boom', () => {
    throw new Error('boom');
  });
  return answerErrorsInJson(a, logs.log);
};

test('a 404 and a 500 carry Cache-Control: no-store, as every other body does', async () => {
  const missing = await app().request('/nowhere');
  assert.is(missing.status, 404);
  assert.is(missing.headers.get('cache-control'), 'no-store');
  assert.equal(await missing.json(), { error: 'no route for GET /nowhere' });
  const failed = await app().request('/boom');
  assert.is(failed.status, 500);
  assert.is(failed.headers.get('cache-control'), 'no-store');
  assert.equal(await failed.json(), { error: 'internal error' });
  assert.is(logs.find('request failed').length, 1, 'the stack goes to the log');
});

test("the management port's 404 too", async () => {
  const res = await createManagementApp(new Registry()).request('/api/health');
  assert.is(res.status, 404);
  assert.is(res.headers.get('cache-control'), 'no-store');
});

test.run();
