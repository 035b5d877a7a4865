// An app that answers 413 before it has read the body, spoken to over raw TCP by clients that keep sending: the
// answer is read whole, the rest of the body dropped, and the connection cut past either bound.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { LINGER, lingerAfterEarlyAnswers, type LingerBounds } from './lingering-close.ts';
import { withDeadline } from '../test/support/deadline.ts';
import { listen, type Listening } from '../test/support/listen.ts';

const MiB = 1024 * 1024;
// The product's time bound, so that a loaded machine, slow to read the 8 MiB below, is not cut off mid-body; a
// second server with a short one for the test of that bound.
const BOUNDS = { ms: LINGER.ms, bytes: 12 * MiB };
const SHORT_MS = 300;
const CRLF = Buffer.from('\r\n');
let served: Listening;
let hasty: Listening;

function serve(bounds: LingerBounds): Promise<Listening> {
  const app = new Hono();
  app.post('/form', bodyLimit({ maxSize: 1024, onError: (c) => c.text('too large\n', 413) }), (c) => c.text('ok\n'));
  app.get('/hello', (c) => c.text('hello\n'));
  // As lib/serve.ts has it: @hono/node-server's own drain off, the lingering close instead.
  const server = createServer(getRequestListener(app.fetch, { autoCleanupIncoming: false }));
  lingerAfterEarlyAnswers(server, bounds);
  return listen(server);
}

test.before(async () => {
  served = await serve(BOUNDS);
  hasty = await serve({ ...BOUNDS, ms: SHORT_MS });
});
test.after(async () => {
  await Promise.all([served.close(), hasty.close()]);
});

interface Exchange {
  answer: string;
  /** The code of the error the connection ended with, if any (EPIPE, ECONNRESET). */
  error?: string;
}

/**
 * Opens a connection that reads nothing while `send` writes, as a client that sends a whole body before it looks
 * at the answer; once `send` has handed all it wrote to the kernel, reads until the server closes.
 */
function exchange(send: (socket: Socket) => void, to = served): Promise<Exchange> {
  const socket = connect(to.port, '127.0.0.1', () => {
    socket.pause();
    send(socket);
    socket.write('', () => socket.resume());
  });
  const ended = new Promise<Exchange>((resolve) => {
    let answer = '';
    let error: string | undefined;
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', (cause: NodeJS.ErrnoException) => (error = cause.code));
    socket.on('close', () => resolve({ answer, error }));
  });
  return withDeadline(ended, 10_000, 'the connection to close').finally(() => socket.destroy());
}

const head = (extra: string) => `POST /form HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n${extra}\r\n`;
/** `MiBs` chunks of a MiB each, and the last chunk when `last`. */
function chunked(socket: Socket, MiBs: number, last = true) {
  const chunk = Buffer.alloc(MiB, 'x');
  for (let i = 0; i < MiBs; i++) socket.write(Buffer.concat([Buffer.from(`${MiB.toString(16)}\r\n`), chunk, CRLF]));
  if (last) socket.write('0\r\n\r\n');
}

test('Connection: close, a body still arriving after the 413: the answer is read whole, no reset', async () => {
  // Before, Node closed the socket with the body unread: the reset lost the answer and failed the writes (EPIPE).
  const { answer, error } = await exchange((socket) => {
    socket.write(head('Transfer-Encoding: chunked\r\nConnection: close\r\n'));
    chunked(socket, 8); // under the byte bound
  });
  assert.is(error, undefined);
  assert.match(answer, /^HTTP\/1\.1 413 Payload Too Large\r\n/, answer);
  assert.match(answer, /\r\nConnection: close\r\n/i);
  assert.ok(answer.endsWith('\r\n\r\ntoo large\n'), answer);
});

test('keep-alive: once the refused body has arrived, the next request on the connection is answered', async () => {
  const { answer, error } = await exchange((socket) => {
    socket.write(head(`Content-Length: ${MiB}\r\n`));
    socket.write(Buffer.alloc(MiB, 'x'));
    socket.write('GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
  });
  assert.is(error, undefined);
  assert.match(answer, /^HTTP\/1\.1 413 Payload Too Large\r\n[^]*\r\n\r\ntoo large\nHTTP\/1\.1 200 OK\r\n/, answer);
  assert.ok(answer.endsWith('\r\n\r\nhello\n'), answer);
});

test('past the byte bound the connection is cut: the client still sending is reset', async () => {
  const { error } = await exchange((socket) => {
    socket.write(head('Transfer-Encoding: chunked\r\n'));
    chunked(socket, 32);
  });
  assert.ok(error === 'EPIPE' || error === 'ECONNRESET', `ended with ${error}`);
});

test('a body that stops arriving after the answer: the connection is cut at the time bound', async () => {
  const { answer, error } = await exchange((socket) => {
    socket.write(head('Transfer-Encoding: chunked\r\n'));
    socket.write(`800\r\n${'x'.repeat(0x800)}\r\n`); // past the form's bound, then nothing more, never the last chunk
  }, hasty);
  // Without the bound Node would keep it open for its requestTimeout (300 s), past this test's deadline.
  assert.match(answer, /^HTTP\/1\.1 413 Payload Too Large\r\n/, answer);
  assert.ok(error === undefined || error === 'ECONNRESET', `ended with ${error}`);
});

test.run();
