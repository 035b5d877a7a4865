// afterFetch: one wrapper per app however many hooks, each hook told the same method, path, status and duration.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Hono } from 'hono';
import { afterFetch, pathOf } from './after-fetch.ts';

test('a second hook joins the first wrapper, and both hear of each request alike', async () => {
  const app = new Hono();
  app.get('/api/health', (c) => c.text('ok'));
  const heard: unknown[][] = [];
  afterFetch(app, (...args) => heard.push(['log', ...args]));
  const wrapped = app.fetch;
  afterFetch(app, (...args) => heard.push(['metrics', ...args]));
  assert.is(app.fetch, wrapped, 'wrapped once');
  const response = await app.request('/api/health?x=1');
  assert.is(await response.text(), 'ok');
  assert.equal(
    heard.map(([who, method, path, status]) => [who, method, path, status]),
    [
      ['log', 'GET', '/api/health', 200],
      ['metrics', 'GET', '/api/health', 200],
    ],
  );
  assert.is(heard[0]![4], heard[1]![4], 'one duration');
});

test('pathOf ends the raw target at ? or #, and leaves other targets to Hono', () => {
  const request = new Request('http://x/api/%68ealth');
  const raw = (url: string) => ({ incoming: { url } });
  assert.is(pathOf(request, raw('/api/health?verbose#x')), '/api/health');
  assert.is(pathOf(request, raw('/api/health#x?y')), '/api/health');
  assert.is(pathOf(request, raw('/api/ready')), '/api/ready');
  assert.is(pathOf(request, raw('/api/%68ealth')), '/api/health');
  assert.is(pathOf(request, undefined), '/api/health');
});

test.run();
