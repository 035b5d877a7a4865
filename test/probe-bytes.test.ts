// The probes' bytes on the wire, their log lines and /metrics, against a recorded copy: a change made for speed in
// the probes' path (lib/health-routes.ts, lib/after-fetch.ts, lib/request-metrics.ts) must not change what they say.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Server } from 'node:http';
import { createApp } from '../backend/app.ts';
import { createReadiness } from '../lib/readiness.ts';
import { createLogger } from '../lib/logger.ts';
import { createMetrics } from '../lib/metrics.ts';
import { startServer } from '../lib/serve.ts';
import { closeHttpServer } from '../lib/shutdown.ts';
import { collectLines } from './support/log-sink.ts';
import { withDeadline } from './support/deadline.ts';

// PROBE_BYTES_WRITE=1 records the copy anew: only when a change of what the probes say is meant.
const RECORDED = fileURLToPath(new URL('fixtures/probe-bytes.txt', import.meta.url));

const REQUESTS: Array<[string, string, Record<string, string>?]> = [
  ['GET', '/api/health'],
  ['HEAD', '/api/health'],
  ['GET', '/api/ready'],
  ['HEAD', '/api/ready'],
  ['GET', '/api/ready?verbose'],
  ['GET', '/api/ready?verbose=garbage'],
  ['GET', '/api/ready?a=1&verbose=0'],
  ['GET', '/api/ready', { Accept: 'application/health+json' }],
  ['GET', '/api/ready', { Accept: 'text/html' }],
  ['GET', '/api/ready/database'],
  ['GET', '/api/ready/nope'],
  ['GET', '/api/./health'],
  ['GET', '/api/%68ealth'],
  ['GET', 'http://127.0.0.1/api/ready?verbose'],
  ['POST', '/api/health'],
  ['GET', '/nope?x=1'],
];

let server: Server | undefined;
test.after(async () => {
  if (server) await closeHttpServer(server);
});

/** One request on its own connection, the response's bytes as they came. */
function raw(port: number, method: string, target: string, headers: Record<string, string> = {}): Promise<string> {
  const head = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
  const socket = connect(port, '127.0.0.1');
  socket.end(`${head.join('\r\n')}\r\n\r\n`);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<string>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  }).then((response) => {
    const [head = '', body = ''] = response.split('\r\n\r\n');
    const length = /^Content-Length: (\d+)$/im.exec(head)?.[1];
    if (length !== undefined && method !== 'HEAD') assert.is(Number(length), body.length, `${target}: Content-Length`);
    return response;
  });
  return withDeadline(ended, 5000, `${method} ${target}`);
}

/** What changes from run to run (clock, uptime, durations, pid) replaced by a mark; all else as it was. */
function steady(text: string): string {
  return (
    text
      .replace(/^Date: .*$/gm, 'Date: <date>')
      // The liveness body's length moves with the uptime's digits; that it is the body's length is checked apart.
      .replace(/^Content-Length: \d+(\r\n\r\n\{"status":"ok")/gm, 'Content-Length: <length>$1')
      .replace(/"timestamp":"[^"]+"/g, '"timestamp":"<time>"')
      .replace(/"uptime":[0-9.e+-]+/g, '"uptime":<uptime>')
      .replace(/"time":\d+,"pid":\d+/g, '"time":<time>,"pid":<pid>')
      .replace(/"responseTime":[0-9.]+/g, '"responseTime":<ms>')
      .replace(/^(http_request_duration_seconds_(?:bucket|sum)\{.*\}) .*$/gm, '$1 <n>')
  );
}

test('probe responses, their log lines and /metrics are as recorded', async () => {
  const readiness = createReadiness({ now: () => new Date('2026-01-02T03:04:05.678Z') });
  const setDatabase = readiness.define('database', { initial: 'connected', ready: ['connected'] });
  const { stream, lines } = collectLines();
  const log = createLogger({ name: 'backend', environment: 'production', level: 'debug', stream });
  const { registry } = createMetrics({ readiness, processMetrics: false });
  const deps = { readiness, environment: 'production', version: '0123abc', log, databaseName: 'app' };
  const app = createApp({ ...deps, metrics: registry });
  server = await startServer({ fetch: app.fetch, port: 0, host: '127.0.0.1' });
  const { port } = server.address() as { port: number };
  const out: string[] = [];
  for (const down of [false, true]) {
    if (down) setDatabase('disconnected', 'client closed');
    for (const [method, target, headers] of REQUESTS) {
      out.push(`>>> ${method} ${target} ${JSON.stringify(headers ?? {})}`, await raw(port, method, target, headers));
    }
  }
  // A scrape is not counted; its body is the registry's text, below (its bucket counts differ from run to run).
  out.push('>>> GET /metrics', (await raw(port, 'GET', '/metrics')).split('\r\n')[0]!);
  out.push('>>> log', ...lines.filter((line) => line.includes('request completed')));
  out.push('>>> registry', await registry.metrics());
  const text = steady(out.join('\n'));
  if (process.env.PROBE_BYTES_WRITE === '1') writeFileSync(RECORDED, text);
  assert.fixture(text, readFileSync(RECORDED, 'utf8'));
});

test.run();
