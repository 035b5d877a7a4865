// A server started with a WebSocket server, spoken to over raw TCP: h2c and other upgrades get plain answers,
// while WebSocket upgrades still open or are refused as the app decides.
import { once } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import type { Server } from 'node:http';
import { Hono } from 'hono';
import { upgradeWebSocket } from '@hono/node-server';
import { WebSocket, WebSocketServer } from 'ws';
import { startServer } from './serve.ts';
import { closeHttpServer } from './shutdown.ts';
import { withDeadline } from '../test/support/deadline.ts';

let server: Server;
let port = 0;

test.before(async () => {
  const app = new Hono();
  app.get('/hello', (c) => c.json({ hello: 'world' }));
  app.post('/echo', async (c) => c.text(await c.req.text()));
  app.get(
    '/socket',
    async (c, next) => (c.req.header('authorization') === 'Bearer yes' ? next() : c.body(null, 401)),
    upgradeWebSocket(() => ({ onMessage: (event, ws) => ws.send(`echo ${event.data}`) })),
  );
  server = await startServer({
    fetch: app.fetch,
    port: 0,
    host: '127.0.0.1',
    websocket: new WebSocketServer({ noServer: true }),
  });
  port = (server.address() as { port: number }).port;
});
test.after(() => closeHttpServer(server));

/** Writes `text` on a fresh connection and resolves with everything the server sent before it closed. */
function exchange(text: string): Promise<string> {
  const socket = connect(port, '127.0.0.1', () => socket.write(text));
  const answer = new Promise<string>((resolve, reject) => {
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
  const what = `the answer to ${JSON.stringify(text.split('\r\n')[0])}`;
  return withDeadline(answer, 5000, what).finally(() => socket.destroy());
}

const h2c = (requestLine: string, extra = '') =>
  `${requestLine} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n` +
  `HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n${extra}\r\n`;

test('GET with Upgrade: h2c is answered by the app over HTTP/1.1, then the connection closes', async () => {
  const answer = await exchange(h2c('GET /hello'));
  const [head = '', body] = answer.split('\r\n\r\n');
  assert.match(head, /^HTTP\/1\.1 200 OK\r\n/, answer);
  assert.match(head, /\r\ncontent-type: application\/json/i);
  assert.match(head, /\r\nconnection: close(\r\n|$)/i);
  assert.is(body, '{"hello":"world"}');
});

test('HEAD and a missing route with Upgrade: h2c get the answers they would get without it', async () => {
  const head = await exchange(h2c('HEAD /hello'));
  assert.match(head, /^HTTP\/1\.1 200 OK\r\n/);
  assert.ok(head.endsWith('\r\n\r\n'), `no body after the head: ${JSON.stringify(head)}`);
  assert.match(await exchange(h2c('GET /nowhere')), /^HTTP\/1\.1 404 /);
});

test('an upgrade to another protocol on a request with a body: 400 saying what to do, never silence', async () => {
  const answer = await exchange(h2c('POST /echo', 'Content-Type: text/plain\r\nContent-Length: 5\r\n') + 'hello');
  assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(answer, /\r\n\r\nUpgrade to h2c is not supported: send the request without the Upgrade header\.\n$/);
});

test('WebSocket upgrades still reach the app: opened when it accepts, refused with its status when not', async () => {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/socket`, { headers: { authorization: 'Bearer yes' } });
  await withDeadline(once(ws, 'open'), 5000, 'open');
  ws.send('ping');
  const [reply] = await withDeadline(
    new Promise<[Buffer]>((resolve) => ws.once('message', (data: Buffer) => resolve([data]))),
    5000,
    'echo',
  );
  assert.is(reply.toString(), 'echo ping');
  ws.close();
  const refused = await exchange(
    'GET /socket HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
      'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  );
  assert.match(refused, /^HTTP\/1\.1 401 Unauthorized\r\n/);
});

test.run();
