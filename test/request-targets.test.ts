// Request targets a client chooses freely, against the real backend: absolute-form and dot-segment targets are
// labelled by the route served, a request line's credentials never reach a log line, and an accepted device
// socket upgrade is recorded as 101.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { spawnService, type Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { withDeadline } from './support/deadline.ts';
import { upgrade } from './support/device-socket.ts';
import { parseExposition, scrape } from './support/metrics-text.ts';

const PASSWORD = 'S3cret-Pa55-in-the-request-line';
let backend: Service;

/** Sends one raw request line (which fetch would normalise) and returns the status line. */
function rawGet(port: number, target: string): Promise<string> {
  const exchange = new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
    );
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer.split('\r\n')[0]!));
    socket.on('error', reject);
  });
  return withDeadline(exchange, 10_000, `GET ${target}`);
}

const requestsOf = async (route: string, status: string) =>
  parseExposition((await scrape(backend.metricsUrl)).text)
    .filter((s) => s.name === 'http_request_duration_seconds_count' && s.labels.route === route)
    .filter((s) => s.labels.status === status)
    .reduce((sum, s) => sum + s.value, 0);

test.before(async () => {
  backend = await spawnService('backend/main.ts', { env: { LOG_LEVEL: 'debug' } });
});
test.after(stopAll);

test('absolute-form and dot-segment targets are labelled by the route served, not (unmatched)', async () => {
  const before = await requestsOf('/api/health', '200');
  const targets = ['http://evil.example/api/health', '/api/./health', '/api/../api/health', '/api/%68ealth'];
  // A fragment has no place in a request line, but Node takes it and Hono serves the path before it.
  targets.push('/api/health#fragment');
  for (const target of targets) {
    assert.is(await rawGet(backend.port, target), 'HTTP/1.1 200 OK', target);
  }
  assert.is(await requestsOf('/api/health', '200'), before + 5);
  const logged = backend.lines.filter((line) => line.includes('request completed') && line.includes('#fragment'));
  assert.equal(logged, [], 'logged by the raw target, not the path served');
});

test("a request line's credentials never reach a log line, and it counts as what it was served as", async () => {
  const metricsBefore = await requestsOf('(unmatched)', '404');
  assert.is(await rawGet(backend.port, `http://user:${PASSWORD}@x/metrics`), 'HTTP/1.1 404 Not Found');
  assert.is(await rawGet(backend.port, `http://user:${PASSWORD}@x/no/such`), 'HTTP/1.1 404 Not Found');
  // Served as the public port's 404 for /metrics (outside local mode), so counted there, not as a scrape.
  assert.is(await requestsOf('(unmatched)', '404'), metricsBefore + 2);
  const logged = backend.lines.filter((line) => line.includes('request completed'));
  assert.ok(
    logged.some((line) => line.includes('"/metrics"')),
    logged.join('\n'),
  );
  assert.not.ok(
    backend.lines.some((line) => line.includes(PASSWORD)),
    'the password was logged',
  );
});

test('an accepted device socket upgrade is recorded as 101, not 200', async () => {
  const opened = await upgrade(backend.url);
  assert.is(opened.status, 101);
  if ('ws' in opened) opened.ws.close();
  const path = '/api/device/socket';
  const counted = async () => requestsOf(path, '101');
  assert.is(await counted(), 1);
  assert.is(await requestsOf(path, '200'), 0);
  const line = backend.lines.find((l) => l.includes(path) && l.includes('request completed'));
  assert.match(line ?? '', /"statusCode":101/);
});

test.run();
