// The backend's device socket over a real WebSocket: readings stored once and acknowledged; one device per
// socket; hello within 5 s; bounded frames and message rate; malformed messages summed; closed with 1001.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnService, type Service } from './support/spawn-service.ts';
import { withDeadline, waitFor } from './support/deadline.ts';
import { stopAll } from './support/spawn-process.ts';
import { openSocket } from './support/device-socket.ts';
import { jsonLines } from './support/device-services.ts';
import { DEVICE_SOCKET_PATH } from '../lib/device-protocol.ts';

const test = suite('backend device socket');
let backend: Service;

test.before.each(async () => {
  // No database: the socket works whatever the database does.
  backend = await spawnService('backend/main.ts', {
    env: { MONGODB_URI: 'mongodb://127.0.0.1:9/app', LOG_LEVEL: 'debug' },
  });
});
test.after.each(() => stopAll());

const connect = () => openSocket(backend.url);
const hello = (deviceId = 'dev-1', session = 's1') => JSON.stringify({ type: 'hello', deviceId, session });
const reading = (seq: number, session = 's1', deviceId = 'dev-1') =>
  JSON.stringify({ type: 'reading', deviceId, session, seq, timestamp: new Date().toISOString(), value: `v${seq}` });
const acks = (messages: Array<Record<string, any>>) => messages.map((m) => m.seq);
const devices = async () => (await (await fetch(`${backend.url}/api/devices`)).json()).devices;
const stored = () =>
  jsonLines(backend)
    .filter((l) => l.msg === 'reading stored')
    .map((l) => `${l.session}:${l.seq}`);
const logged = (text: string) => jsonLines(backend).filter((l) => String(l.msg).includes(text));

test('readings are acknowledged and stored once, in order; a resend is acknowledged but not stored again', async () => {
  const { ws, messages } = await connect();
  ws.send(hello());
  for (const seq of [1, 2, 3, 2, 3, 4]) ws.send(reading(seq));
  await waitFor(() => messages.length === 6, { timeout: 3000, what: 'six acks' });
  assert.equal(acks(messages), [1, 2, 3, 3, 3, 4]);
  const [device] = await devices();
  assert.is(device.deviceId, 'dev-1');
  assert.is(device.connected, true);
  assert.equal(device.lastReading.seq, 4);
  assert.is(device.lastReading.value, 'v4');
  assert.is(device.readingsStored, 4);
  await waitFor(() => stored().length === 4, { timeout: 2000, what: 'four stored lines' });
  assert.equal(stored(), ['s1:1', 's1:2', 's1:3', 's1:4']);
  ws.close(1000);
  await waitFor(async () => (await devices())[0].connected === false, {
    timeout: 2000,
    what: 'device marked disconnected',
  });
});

test('the upgrade is logged with the status the device got: 101 Switching Protocols', async () => {
  const { ws } = await connect();
  const upgrade = () =>
    backend.stdout
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === 'request completed' && l.req.url === DEVICE_SOCKET_PATH);
  const line = await waitFor(upgrade, { timeout: 2000, what: 'the upgrade request logged' });
  assert.is(line.res.statusCode, 101);
  assert.is(line.level, 20); // device-socket requests are logged at debug: the hub logs what matters about them
  ws.close(1000);
});

test('a new session restarts the sequence', async () => {
  const { ws, messages } = await connect();
  ws.send(hello('dev-1', 'old'));
  ws.send(reading(5, 'old'));
  ws.send(reading(1, 'new'));
  await waitFor(() => messages.length === 2, { timeout: 3000, what: 'two acks' });
  assert.equal(acks(messages), [5, 1]);
  assert.is((await devices())[0].session, 'new');
});

test('a message naming a second device closes the socket with 1008; nothing of it is stored', async () => {
  const { ws, messages, closed } = await connect();
  ws.send(hello('dev-1'));
  ws.send(reading(1));
  ws.send(reading(1, 's1', 'dev-2'));
  assert.equal(await withDeadline(closed, 3000, 'socket close'), { code: 1008, reason: 'one device per socket' });
  assert.equal(acks(messages), [1]);
  assert.equal(
    (await devices()).map((d: { deviceId: string }) => d.deviceId),
    ['dev-1'],
  );
  await waitFor(() => logged('named a second device').length === 1, { timeout: 2000, what: 'the warning' });
});

test('a first message that is not hello closes the socket with 1008', async () => {
  const { ws, closed } = await connect();
  ws.send(reading(1));
  assert.equal(await withDeadline(closed, 3000, 'socket close'), { code: 1008, reason: 'hello first' });
  assert.equal(await devices(), []);
});

test('a socket that says no hello within 5 s is closed with 1008', async () => {
  const { ws, closed } = await connect();
  const opened = Date.now();
  ws.send('not json'); // malformed messages are no hello
  const { code } = await withDeadline(closed, 8000, 'socket close');
  const after = Date.now() - opened;
  assert.is(code, 1008);
  assert.ok(after >= 4900 && after < 7000, `closed after ${after} ms`);
  await waitFor(() => logged('sent no hello within 5 s').length === 1, { timeout: 2000, what: 'the warning' });
});

test(
  'malformed messages are ignored and summed into one warning, not one line each; ' + 'the socket stays open',
  async () => {
    const { ws, messages } = await connect();
    ws.send(hello());
    for (let i = 0; i < 50; i++) ws.send(i % 2 ? 'not json' : JSON.stringify({ type: 'reading', seq: 'x' }));
    ws.send(reading(1));
    await waitFor(() => messages.length === 1, { timeout: 3000, what: 'one ack' });
    // The first is logged at once; the other 49 are summed into the line written 5 s later.
    const warnings = await waitFor(
      () => {
        const lines = logged('malformed device message');
        return lines.reduce((sum, l) => sum + l.count, 0) === 50 ? lines : undefined;
      },
      { timeout: 8000, what: 'warnings summing to 50' },
    );
    assert.equal(
      warnings.map((l) => l.count),
      [1, 49],
    );
    assert.is(warnings[0]!.level, 40);
    assert.is(warnings[1]!.msg, 'ignored 49 malformed device messages');
  },
);

test('more than the burst of 200 messages at once closes the socket with 1008 and one warning', async () => {
  const { ws, messages, closed } = await connect();
  ws.send(hello());
  for (let seq = 1; seq <= 400; seq++) ws.send(reading(seq));
  assert.equal(await withDeadline(closed, 3000, 'socket close'), { code: 1008, reason: 'message rate exceeded' });
  // hello + 199 readings fit the burst (plus what refilled meanwhile); far from all 400 were taken.
  assert.ok(messages.length >= 199 && messages.length < 300, `${messages.length} acks`);
  await waitFor(() => logged('over its message rate').length === 1, { timeout: 2000, what: 'one warning' });
  assert.is(logged('over its message rate').length, 1);
});

test('a frame over 64 KiB closes the socket with 1009; one of 64 KiB is fine', async () => {
  const { ws, messages, closed } = await connect();
  ws.send(hello());
  const value = 'x'.repeat(64 * 1024 - 200);
  ws.send(
    JSON.stringify({
      type: 'reading',
      deviceId: 'dev-1',
      session: 's1',
      seq: 1,
      timestamp: new Date().toISOString(),
      value,
    }),
  );
  await waitFor(() => messages.length === 1, { timeout: 3000, what: 'ack of the large reading' });
  ws.send('x'.repeat(1024 * 1024));
  assert.is((await withDeadline(closed, 3000, 'socket close')).code, 1009);
});

test('on SIGTERM device sockets are closed with 1001 (going away) and the backend exits 0', async () => {
  const { ws, closed } = await connect();
  ws.send(hello());
  const silent = await connect(); // one that has not said hello yet is closed too
  backend.signal('SIGTERM');
  assert.is((await withDeadline(closed, 5000, 'socket close')).code, 1001);
  assert.is((await withDeadline(silent.closed, 5000, 'socket close')).code, 1001);
  assert.is(await backend.waitExit(10_000), 0);
});

test.run();
