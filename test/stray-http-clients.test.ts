// Strangers at the HTTP door of each real service: an h2c upgrade gets a plain HTTP/1.1 answer, and neither it
// nor a request head sent half-way and left open can turn a SIGTERM into exit 1.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { freePort } from '../tools/free-port.ts';
import { withDeadline } from './support/deadline.ts';
import { spawnService, type Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { createPool } from './support/run-smoke-cli.ts';

/** What `curl --http2 http://…` sends: an HTTP/1.1 request asking to switch to cleartext HTTP/2. */
const H2C_UPGRADE =
  'GET /api/health HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\n' +
  'Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n';
/** A request head cut off before its blank line: the server must wait for the rest, but not forever. */
const HALF_HEAD = 'GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ';

// Exit codes, never durations, are asserted; a deadline only keeps a broken build from hanging the suite.
const EXIT_DEADLINE_MS = 20_000;

const services = {
  backend: () => spawnService('backend/main.ts', { env: { MONGODB_URI: 'mongodb://127.0.0.1:1/app' } }),
  device: async () =>
    spawnService('device/main.ts', { env: { NODE_ENV: 'local', BACKEND_URL: `http://127.0.0.1:${await freePort()}` } }),
  frontend: async () =>
    spawnService('frontend/main.ts', {
      env: { BACKEND_URL: `http://127.0.0.1:${await freePort()}`, DEVICE_URL: '' },
      waitPath: '/',
    }),
};

// Every service the file needs starts when it begins, a few side by side; each test awaits its own. The two that
// only ask share a backend; the ones that send SIGTERM have one each.
const pool = createPool(3);
let started: Record<'asked' | 'h2cStopped' | 'backend' | 'device' | 'frontend', Promise<Service>>;
test.before(() => {
  const { backend, device, frontend } = services;
  started = {
    asked: pool(backend),
    h2cStopped: pool(backend),
    backend: pool(backend),
    device: pool(device),
    frontend: pool(frontend),
  };
  for (const start of Object.values(started)) start.catch(() => {}); // its test reports the failure
});
test.after(stopAll);

const open: Socket[] = [];
test.after.each(() => {
  for (const socket of open.splice(0)) socket.destroy();
});

/** A raw TCP connection that has written `text`; collects whatever comes back. */
async function rawClient(service: Service, text: string) {
  const socket = connect(service.port, '127.0.0.1');
  open.push(socket);
  socket.on('error', () => {}); // a reset at shutdown is fine; what matters is the server's exit code
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(text);
  return { socket, ended, received: () => received };
}

test('backend: an h2c upgrade request gets a plain HTTP/1.1 answer, then the connection closes', async () => {
  const backend = await started.asked;
  const client = await rawClient(backend, H2C_UPGRADE);
  await withDeadline(client.ended, 10_000, 'the answer to an h2c upgrade request');
  const [head = '', body = ''] = client.received().split('\r\n\r\n');
  assert.match(head, /^HTTP\/1\.1 200 OK\r\n/, client.received() || '(nothing came back)');
  assert.match(head, /\r\nconnection: close\r\n/i);
  assert.not.match(head, /\r\nupgrade:/i, 'no switch of protocols is offered');
  assert.is(JSON.parse(body).status, 'ok');
});

test('backend: a WebSocket upgrade to a path with no socket is still refused with a status', async () => {
  const backend = await started.asked;
  const client = await rawClient(
    backend,
    'GET /api/health HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
      'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  );
  await withDeadline(client.ended, 10_000, 'the answer to a WebSocket upgrade on /api/health');
  assert.match(client.received(), /^HTTP\/1\.1 \d{3} /);
  assert.not.match(client.received(), /^HTTP\/1\.1 101 /);
});

test('backend: SIGTERM with an h2c upgrade connection open exits 0', async () => {
  const backend = await started.h2cStopped;
  await rawClient(backend, H2C_UPGRADE);
  backend.signal('SIGTERM');
  assert.is(await backend.waitExit(EXIT_DEADLINE_MS), 0, backend.lines.slice(-5).join('\n'));
});

for (const name of ['backend', 'device', 'frontend'] as const) {
  test(`${name}: SIGTERM with a half-sent request head left open exits 0`, async () => {
    const service = await started[name];
    const client = await rawClient(service, HALF_HEAD);
    service.signal('SIGTERM');
    assert.is(await service.waitExit(EXIT_DEADLINE_MS), 0, service.lines.slice(-5).join('\n'));
    assert.match(client.received(), /^(HTTP\/1\.1 408 |$)/, 'if anything, a 408 Request Timeout');
  });
}

test.run();
