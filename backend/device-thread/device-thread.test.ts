// The main thread's side of the device thread, on a real server with a stand-in thread that echoes
// (test/support/echo-device-worker.mjs): frames go there and what it sends comes back; a thread that stops closes
// its sockets with 1013 and a new one serves the next socket; a peer that reads nothing is dropped past the bound.
import { once } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Hono } from 'hono';
import WebSocket, { WebSocketServer } from 'ws';
import { DEVICE_SOCKET_PATH } from '../../lib/device-protocol.ts';
import { startServer } from '../../lib/serve.ts';
import { createLogSink } from '../../test/support/log-sink.ts';
import { rejection, waitFor, withDeadline } from '../../test/support/deadline.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScratch } from '../../test/support/scratch.ts';
import { startDeviceThread } from './device-thread.ts';

const TOKEN = 'in-process-token-0123456789';
const ECHO = new URL('../../test/support/echo-device-worker.mjs', import.meta.url);

/**
 * The device thread's main side with the echoing stand-in, in an app on a real server; `close()` in a finally.
 * `started: false` returns before the thread is ready.
 */
async function startRelay({ started = true, silentMs }: { started?: boolean; silentMs?: number } = {}) {
  const sink = createLogSink('info', 'backend');
  // The `devices` readiness check's states and reasons, as the device path told them.
  const paths: string[] = [];
  const reasons: (string | undefined)[] = [];
  const thread = startDeviceThread({
    logger: sink.log,
    log: { environment: 'production' },
    uri: 'mongodb://127.0.0.1:9/app',
    databaseName: 'app',
    token: TOKEN,
    socketsMax: 10,
    onHeard: () => {},
    entry: ECHO,
    onPath: (state, reason) => void (paths.push(state), reasons.push(reason)),
    behindMs: 300,
    ...(silentMs ? { silentMs } : {}),
  });
  if (started) await thread.started;
  const app = new Hono();
  app.get(DEVICE_SOCKET_PATH, thread.gate, thread.upgrade);
  const websocket = new WebSocketServer({ noServer: true });
  const server = await startServer({ fetch: app.fetch, port: 0, host: '127.0.0.1', websocket });
  const url = `ws://127.0.0.1:${(server.address() as { port: number }).port}${DEVICE_SOCKET_PATH}`;
  const clients: WebSocket[] = [];
  return {
    sink,
    thread,
    paths,
    reasons,
    async connect() {
      const client = await connect(url);
      clients.push(client.ws);
      return client;
    },
    async close() {
      for (const ws of clients) ws.terminate();
      await thread.stop().finally(() => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(resolve));
      });
    },
  };
}

/** An open client socket, its text messages and its close. */
async function connect(url: string) {
  const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${TOKEN}` } });
  const messages: string[] = [];
  ws.on('message', (data) => messages.push(String(data)));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  await withDeadline(once(ws, 'open'), 5000, 'open');
  return { ws, messages, closed };
}

const echoed = (messages: string[], text: string) =>
  waitFor(() => messages.includes(text), { timeout: 5000, what: `"${text}" back` });

test('a frame goes to the device thread, and what it sends comes back; binary frames as bytes', async () => {
  const relay = await startRelay();
  try {
    const { ws, messages } = await relay.connect();
    ws.send('hello, thread');
    ws.send(Buffer.alloc(70_000), { binary: true });
    await echoed(messages, 'hello, thread');
    await echoed(messages, 'binary 70000');
    assert.is(relay.thread.socketsOpen(), 1);
  } finally {
    await relay.close();
  }
});

test('a device thread that stops: its sockets close with 1013, and a new thread serves the next one', async () => {
  const relay = await startRelay();
  try {
    const first = await relay.connect();
    first.ws.send('crash');
    const closed = await withDeadline(first.closed, 5000, 'the socket closed');
    assert.equal(closed, { code: 1013, reason: 'device thread restarting' });
    assert.is(relay.sink.find('the device thread stopped (exit code 3)').length, 1);
    assert.equal(relay.paths.slice(0, 2), ['ok', 'down'], 'the devices check turned down with the thread');
    const next = await waitFor(
      async () => {
        const socket = await relay.connect();
        socket.ws.send('again');
        const answered = await waitFor(() => socket.messages.includes('again'), { timeout: 500, what: 'echo' })
          .then(() => true)
          .catch(() => false);
        if (answered) return socket;
        socket.ws.terminate();
        return undefined;
      },
      { timeout: 10_000, interval: 200, what: 'a new thread answering' },
    );
    assert.equal(next.messages, ['again']);
    assert.equal(relay.paths.slice(0, 3), ['ok', 'down', 'ok'], 'and ok again with the new thread');
  } finally {
    await relay.close();
  }
});

test('a socket whose frames the thread has not handled is not read past its share; handled, it is again', async () => {
  const relay = await startRelay();
  try {
    const heavy = await relay.connect();
    const frame = 'f'.repeat(60 * 1024);
    // 16 frames of 60 KiB: the socket's share (256 KiB) is reached after the fifth.
    for (let i = 0; i < 16; i++) heavy.ws.send(frame);
    await waitFor(() => heavy.messages.length >= 5, { timeout: 5000, what: 'the share echoed' });
    // Another socket is read and answered meanwhile: the relay and the thread are not stuck, the heavy socket waits.
    const light = await relay.connect();
    light.ws.send('light');
    await waitFor(() => light.messages.includes('light'), { timeout: 5000, what: 'the light echo' });
    assert.ok(heavy.messages.length < 16, `${heavy.messages.length} of 16 frames read while none was handled`);
    await waitFor(() => relay.paths.includes('behind'), { timeout: 5000, what: 'the device path behind' });
    light.ws.send('take');
    await waitFor(() => heavy.messages.length === 16, { timeout: 5000, what: 'every frame, once handled' });
    await waitFor(() => relay.paths.at(-1) === 'ok', { timeout: 5000, what: 'the device path ok again' });
    assert.equal(relay.paths, ['ok', 'behind', 'ok']);
  } finally {
    await relay.close();
  }
});

test('a peer that leaves more than 64 KiB of our sending unread is dropped', async () => {
  const relay = await startRelay();
  try {
    const { ws } = await relay.connect();
    (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    ws.send('flood');
    const warning = await waitFor(() => relay.sink.find('stopped reading')[0], {
      timeout: 5000,
      what: 'the drop',
    });
    assert.ok(warning.buffered > 64 * 1024, JSON.stringify(warning));
    await waitFor(() => relay.thread.socketsOpen() === 0, { timeout: 5000, what: 'the socket gone' });
  } finally {
    await relay.close();
  }
});

test('a thread stuck in a loop: the devices check is down once the thread leaves a probe unanswered', async () => {
  const relay = await startRelay({ silentMs: 300 });
  try {
    const { ws, closed } = await relay.connect();
    ws.send('hang');
    await waitFor(() => relay.paths.includes('down'), { timeout: 5000, what: 'the devices check down' });
    // Its `hang` frame is never handled: `behind` may come first (the bound is 300 ms here too).
    assert.equal(
      relay.paths.filter((state) => state !== 'behind'),
      ['ok', 'down'],
    );
    const reason = relay.reasons[relay.paths.indexOf('down')]!;
    assert.match(reason, /^the device thread has not answered for \d+ ms: it is hung$/);
    assert.is(relay.thread.socketsOpen(), 1, 'a hung thread still holds its socket: it is not dead');
    ws.terminate();
    await closed;
  } finally {
    // Asked to stop, the hung thread answers nothing: after the question's deadline it is ended all the same.
    const stopped = await rejection(relay.close());
    assert.match(stopped.message, 'the device thread to stop');
  }
});

test('sockets opened before the thread is ready are held, and their frames handled once it is', async () => {
  const scratch = createScratch('device-thread-gate-');
  const gate = join(scratch.dir, 'ready');
  process.env.ECHO_READY_GATE = gate;
  const relay = await startRelay({ started: false });
  try {
    const { ws, messages } = await relay.connect();
    ws.send('early');
    ws.send(Buffer.alloc(3), { binary: true });
    assert.is(relay.thread.socketsOpen(), 1, 'open and held');
    assert.equal([relay.paths, messages], [[], []], 'no verdict and no answer before the thread runs');
    writeFileSync(gate, '');
    await echoed(messages, 'early');
    await echoed(messages, 'binary 3');
    assert.equal(messages, ['early', 'binary 3'], 'in order');
    assert.equal(relay.paths, ['ok']);
  } finally {
    delete process.env.ECHO_READY_GATE;
    await relay.close();
    scratch.remove();
  }
});

test.run();
