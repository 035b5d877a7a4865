// The bench's baseline answers as the backend does: same status, Content-Type and body length, checked by
// assertSameBodies against the real bare server and a backend app in its connected state.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Server } from 'node:http';
import { createApp } from '../../backend/app.ts';
import { createReadiness } from '../../lib/readiness.ts';
import { createLogger } from '../../lib/logger.ts';
import { startServer } from '../../lib/serve.ts';
import { closeHttpServer } from '../../lib/shutdown.ts';
import { collectLines } from '../support/log-sink.ts';
import { spawnService } from '../support/spawn-service.ts';
import { stopAll } from '../support/spawn-process.ts';
import { rejection } from '../support/deadline.ts';
import { assertSameBodies, comparable } from './same-bodies.ts';

const servers: Server[] = [];
test.after(async () => {
  await Promise.all(servers.map((server) => closeHttpServer(server)));
  await stopAll();
});

/**
 * The backend's app as the bench runs it: release a 12-hex commit, the database connected by a heartbeat, its device
 * path (defined as backend/main.ts does) running.
 */
async function backend(): Promise<string> {
  const readiness = createReadiness();
  readiness.define('database', { initial: 'disconnected', ready: ['connected'] })('connected', 'heartbeat succeeded');
  readiness.define('devices', { initial: 'starting', ready: ['ok'], decides: false })('ok');
  const log = createLogger({ name: 'backend', environment: 'production', stream: collectLines().stream });
  const app = createApp({ readiness, environment: 'production', version: 'fedcba987654', log, databaseName: 'app' });
  const server = await startServer({ fetch: app.fetch, port: 0, host: '127.0.0.1' });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

test('uptime digits are blanked, nothing else', () => {
  assert.is(comparable('{"uptime":12.3456789,"x":1.5}'), '{"uptime":0,"x":1.5}');
});

test('the bare node:http baseline answers health and readiness with bodies as long as the backend’s', async () => {
  const bare = await spawnService('test/bench/fixtures/bare-health-server.ts', {});
  await assertSameBodies(await backend(), bare.url, ['/api/health', '/api/ready']);
});

test('a baseline with a shorter body is refused, naming both', async () => {
  const ours = await backend();
  const short = await startServer({
    fetch: () => new Response('{"status":"ready"}', { headers: { 'Content-Type': 'application/json' } }),
    port: 0,
    host: '127.0.0.1',
  });
  servers.push(short);
  const url = `http://127.0.0.1:${(short.address() as { port: number }).port}`;
  const error = await rejection(assertSameBodies(ours, url, ['/api/ready']));
  assert.match(error.message, /^\/api\/ready: the baseline does not answer as ours does: ours 200 /);
  assert.match(error.message, /baseline 200 application\/json \{"status":"ready"\}$/);
});

test.run();
