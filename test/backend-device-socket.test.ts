// The backend's device socket over a real WebSocket: readings stored once, acknowledged, listed, closed with 1001.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { spawnService, type Service } from './helpers/spawn-service.ts';
import { withDeadline, waitFor } from './helpers/deadline.ts';
import { stopAll } from './helpers/spawn-process.ts';
import { DEVICE_SOCKET_PATH } from '../lib/device-protocol.ts';

const test = suite('backend device socket');
let backend: Service;

test.before.each(async () => {
  // No database: the socket works whatever the database does.
  backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: 'mongodb://127.0.0.1:9/app', LOG_LEVEL: 'debug' } });
});
test.after.each(() => stopAll());

function connect(): Promise<{ ws: WebSocket; acks: number[]; closed: Promise<number> }> {
  const ws = new WebSocket(backend.url.replace('http', 'ws') + DEVICE_SOCKET_PATH);
  const acks: number[] = [];
  ws.on('message', (data) => acks.push(JSON.parse(String(data)).seq));
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  return withDeadline(new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, acks, closed }));
    ws.once('error', reject);
  }), 3000, 'device socket open');
}

const reading = (seq: number, session = 's1') => JSON.stringify({ type: 'reading', deviceId: 'dev-1', session, seq, timestamp: new Date().toISOString(), value: `v${seq}` });
const devices = async () => (await (await fetch(`${backend.url}/api/devices`)).json()).devices;
const stored = () => backend.stdout.map((l) => JSON.parse(l)).filter((l) => l.msg === 'reading stored').map((l) => `${l.session}:${l.seq}`);

test('readings are acknowledged and stored once, in order; a resend is acknowledged but not stored again', async () => {
  const { ws, acks } = await connect();
  ws.send(JSON.stringify({ type: 'hello', deviceId: 'dev-1', session: 's1' }));
  for (const seq of [1, 2, 3, 2, 3, 4]) ws.send(reading(seq));
  await waitFor(() => acks.length === 6, { timeout: 3000, what: 'six acks' });
  assert.equal(acks, [1, 2, 3, 3, 3, 4]);
  const [device] = await devices();
  assert.is(device.deviceId, 'dev-1');
  assert.is(device.connected, true);
  assert.equal(device.lastReading.seq, 4);
  assert.is(device.lastReading.value, 'v4');
  assert.is(device.readingsStored, 4);
  await waitFor(() => stored().length === 4, { timeout: 2000, what: 'four stored lines' });
  assert.equal(stored(), ['s1:1', 's1:2', 's1:3', 's1:4']);
  ws.close(1000);
  await waitFor(async () => (await devices())[0].connected === false, { timeout: 2000, what: 'device marked disconnected' });
});

test('the upgrade is logged with the status the device got: 101 Switching Protocols', async () => {
  const { ws } = await connect();
  const upgrade = () => backend.stdout.map((l) => JSON.parse(l)).find((l) => l.msg === 'request completed' && l.req.url === DEVICE_SOCKET_PATH);
  const line = await waitFor(upgrade, { timeout: 2000, what: 'the upgrade request logged' });
  assert.is(line.res.statusCode, 101);
  assert.is(line.level, 30);
  ws.close(1000);
});

test('a new session restarts the sequence', async () => {
  const { ws, acks } = await connect();
  ws.send(reading(5, 'old'));
  ws.send(reading(1, 'new'));
  await waitFor(() => acks.length === 2, { timeout: 3000, what: 'two acks' });
  assert.equal(acks, [5, 1]);
  assert.is((await devices())[0].session, 'new');
});

test('malformed messages are ignored with a warning; the socket stays open', async () => {
  const { ws, acks } = await connect();
  ws.send('not json');
  ws.send(JSON.stringify({ type: 'reading', seq: 'x' }));
  ws.send(reading(1));
  await waitFor(() => acks.length === 1, { timeout: 3000, what: 'one ack' });
  // The log lines travel through a pipe of their own: they may reach us after the ack does.
  const malformed = () => backend.stdout.map((l) => JSON.parse(l)).filter((l) => l.msg === 'ignored a malformed device message');
  const warnings = await waitFor(() => (malformed().length >= 2 ? malformed() : undefined), { timeout: 3000, what: 'two warnings' });
  assert.is(warnings.length, 2);
  assert.is(warnings[0].level, 40);
});

test('on SIGTERM device sockets are closed with 1001 (going away) and the backend exits 0', async () => {
  const { ws, closed } = await connect();
  ws.send(reading(1));
  backend.signal('SIGTERM');
  assert.is(await withDeadline(closed, 5000, 'socket close'), 1001);
  assert.is(await backend.waitExit(10_000), 0);
});

test.run();
