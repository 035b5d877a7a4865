// The device hub in-process on a real server, behind the upgrade gate, without the device thread: a hello whose names
// are longer than the protocol allows is no hello, and a socket without one is closed at the hello deadline;
// presence and backlog; bursts handled in order. The store stores at once. What a peer may leave unread is the main
// thread's bound (backend/device-thread/device-thread.test.ts).
import { once } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket, { WebSocketServer } from 'ws';
import { DEVICE_SOCKET_PATH, helloFrame, readingsFrame, encodeReading } from '../../lib/device-protocol.ts';
import type { PresenceState } from '../readings/device-summary.ts';
import { createReadiness } from '../../lib/readiness.ts';
import { startServer } from '../../lib/serve.ts';
import { createLogSink } from '../../test/support/log-sink.ts';
import { createApp } from '../app.ts';
import { inProcessDeviceRoutes, type InProcessOptions } from '../../test/support/in-process-device-routes.ts';
import { frame, OPCODE, rawUpgrade } from '../../test/support/raw-device-socket.ts';
import { waitFor } from '../../test/support/deadline.ts';

const TOKEN = 'in-process-token-0123456789';
/** A device socket to the hub with the token it trusts, not yet open. */
const deviceSocket = (port: number) =>
  new WebSocket(`ws://127.0.0.1:${port}${DEVICE_SOCKET_PATH}`, { headers: { Authorization: `Bearer ${TOKEN}` } });

/** A hub whose store stores at once, in the backend's app on a real server; `close()` in a finally. */
async function startHub(options: Partial<InProcessOptions> = {}) {
  const sink = createLogSink('info');
  const devices = inProcessDeviceRoutes({
    log: sink.log,
    store: {
      insert: async (docs) => ({ inserted: docs.length, duplicates: [] }),
      settled: async () => true,
      refusedThrough: async () => {},
      recordLosses: async () => 0,
    },
    token: TOKEN,
    ...options,
  });
  const app = createApp({
    readiness: createReadiness(),
    environment: 'production',
    version: 'test',
    log: sink.log,
    databaseName: 'app',
    devices,
  });
  const websocket = new WebSocketServer({ noServer: true });
  const server = await startServer({ fetch: app.fetch, port: 0, host: '127.0.0.1', websocket });
  return {
    sink,
    devices,
    websocket,
    port: (server.address() as { port: number }).port,
    async close() {
      await devices.closeAll();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

test('a hello with a deviceId off the rule or a session over 256 characters is malformed: closed 1008', async () => {
  const told: unknown[] = [];
  const { sink, port, close } = await startHub({
    helloTimeoutMs: 300,
    presence: async (states) => void told.push(states),
  });
  try {
    for (const hello of [
      { type: 'hello', deviceId: 'd'.repeat(257), session: 's' },
      { type: 'hello', deviceId: 'dev', session: 's'.repeat(257) },
      { type: 'hello', deviceId: '', session: 's' },
      // A device id holds letters, digits, '.', '_' and '-' only (lib/device-protocol.ts), as in DEVICE_TOKENS.
      { type: 'hello', deviceId: 'dev/1', session: 's' },
      { type: 'hello', deviceId: 'dev:1', session: 's' },
      { type: 'hello', deviceId: 'dév', session: 's' },
    ]) {
      const socket = await rawUpgrade(port, TOKEN);
      socket.resume();
      const closed = new Promise<Buffer>((resolve) => {
        let received = Buffer.alloc(0);
        socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
        socket.once('close', () => resolve(received));
      });
      socket.write(frame(OPCODE.text, JSON.stringify(hello)));
      const received = await waitFor(() => closed, { timeout: 3000, what: 'the close' });
      // A server close frame: 0x88, the length, the code (1008) and the reason.
      assert.is(received[0], 0x88);
      assert.is(received.readUInt16BE(2), 1008);
      assert.is(received.subarray(4).toString(), 'no hello');
      socket.destroy();
    }
    assert.equal(told, [], 'no device was ever connected');
    assert.ok(sink.find('malformed device message').length > 0, 'counted as malformed');
    // Closed by the hello deadline, which says so (summed: the first at once, the rest later or on close).
    const [silent] = sink.find('that sent no hello within 0.3 s');
    assert.equal([silent?.msg, silent?.level], ['closed 1 device socket that sent no hello within 0.3 s (1008)', 40]);
  } finally {
    await close();
  }
});

test('the backlog of the latest hello or frame goes out with each beat, and with the close', async () => {
  const told: PresenceState[] = [];
  const { port, close } = await startHub({ beatMs: 20, presence: async (states) => void told.push(...states) });
  const ws = deviceSocket(port);
  try {
    await once(ws, 'open');
    ws.send(helloFrame('dev-b', 's', 7));
    await waitFor(() => told.some((s) => s.backlog === 7 && s.connected), { timeout: 3000, what: 'the hello told' });
    const reading = encodeReading({ seq: 1, timestamp: '2026-01-01T00:00:00.000Z', value: 'v' });
    ws.send(readingsFrame({ deviceId: 'dev-b', session: 's', backlog: 3 }, [reading]));
    await waitFor(() => told.some((s) => s.backlog === 3 && s.connected), { timeout: 3000, what: 'a beat with 3' });
    ws.send(helloFrame('dev-b', 's', 0));
    ws.send(readingsFrame({ deviceId: 'dev-b', session: 's' }, [reading]));
    await waitFor(() => told.some((s) => s.backlog === 0 && s.connected), { timeout: 3000, what: 'a beat with 0' });
    ws.close();
    const closed = await waitFor(() => told.find((s) => !s.connected), { timeout: 3000, what: 'the close told' });
    assert.equal([closed.deviceId, closed.backlog], ['dev-b', 0], 'a frame without a backlog keeps the last one');
  } finally {
    ws.terminate();
    await close();
  }
});

test('closeAll waits for a presence write a device that left just before is still making', async () => {
  const told: PresenceState[] = [];
  let finishWrite: (() => void) | undefined;
  const presence = (states: PresenceState[]) =>
    states[0]!.connected
      ? Promise.resolve(void told.push(...states))
      : new Promise<void>((resolve) => (finishWrite = () => resolve(void told.push(...states))));
  const { port, devices, close } = await startHub({ presence });
  const ws = deviceSocket(port);
  try {
    await once(ws, 'open');
    ws.send(helloFrame('dev-c', 's', 0));
    await waitFor(() => told.some((s) => s.connected), { timeout: 3000, what: 'the hello told' });
    ws.close();
    await waitFor(() => finishWrite, { timeout: 3000, what: 'the disconnect being written' });
    let closedAll = false;
    const closing = devices.closeAll().then(() => (closedAll = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.not.ok(closedAll, 'closeAll waits for the write under way');
    finishWrite!();
    await waitFor(() => closedAll, { timeout: 3000, what: 'closeAll once the write is done' });
    await closing;
    assert.equal(
      told.map((s) => [s.deviceId, s.connected]),
      [
        ['dev-c', true],
        ['dev-c', false],
      ],
    );
  } finally {
    ws.terminate();
    await close();
  }
});

test('a burst is handled in full and in order, a frame a turn; the socket paused while behind', async () => {
  const stored: number[] = [];
  const pausedAtInsert: boolean[] = [];
  let server: WebSocket | undefined;
  const { sink, port, websocket, close } = await startHub({
    frames: { sliceMs: 0, pauseAt: 4 },
    store: {
      insert: async (docs) => {
        pausedAtInsert.push(server!.isPaused);
        stored.push(...docs.map((doc) => doc.seq));
        return { inserted: docs.length, duplicates: [] };
      },
      settled: async () => true,
      refusedThrough: async () => {},
      recordLosses: async () => 0,
    },
  });
  websocket.on('connection', (ws: WebSocket) => (server = ws));
  try {
    const socket = await rawUpgrade(port, TOKEN);
    const at = '2026-01-01T00:00:00.000Z';
    const frames = Array.from({ length: 60 }, (_, i) =>
      readingsFrame(
        { deviceId: 'burst', session: 's' },
        [1, 2, 3].map((k) => encodeReading({ seq: i * 3 + k, timestamp: at, value: `v${i * 3 + k}` })),
      ),
    );
    // One write: the whole burst reaches the backend together, as a backlog does after an outage.
    socket.write(Buffer.concat([helloFrame('burst', 's'), ...frames].map((text) => frame(OPCODE.text, text))));
    await waitFor(() => stored.length === 180, { timeout: 5000, what: 'the 180 readings stored' });
    assert.equal(
      stored,
      Array.from({ length: 180 }, (_, i) => i + 1),
      'every reading, in order',
    );
    assert.ok(pausedAtInsert[0], 'paused while frames of the burst were waiting');
    await waitFor(() => server!.isPaused === false, { timeout: 5000, what: 'the socket resumed' });
    // What a device sends before it closes is still handled: a malformed last frame is counted.
    // Ended, not destroyed: a reset could discard what the backend has not read yet.
    socket.end(frame(OPCODE.text, '{"type":"nonsense"}'));
    await waitFor(() => sink.find('malformed device message').length === 1, { timeout: 5000, what: 'the warning' });
    socket.destroy();
  } finally {
    await close();
  }
});

test.run();
