// The backend's device socket over a real WebSocket, on the in-process MongoDB stand-in: readings stored once and
// acknowledged per session, only as far as they are contiguous; one device per socket; hello first; bounded frames
// and message rate; malformed messages summed; closed with 1001. The hello deadline is
// backend/device-socket/device-hub.test.ts's (and, at its 5 s, the fault suite's).
import { readdirSync, readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { READ_AUTH, type Service } from './support/spawn-service.ts';
import { withDeadline, waitFor } from './support/deadline.ts';
import { stopAll } from './support/spawn-process.ts';
import { openSocket, type OpenSocket } from './support/device-socket.ts';
import { startReadyBackend } from './support/ready-backend.ts';
import { jsonLines } from './support/device-services.ts';
import {
  DEVICE_IN_FLIGHT_HEADER,
  DEVICE_MESSAGE_RATE,
  DEVICE_RATE_HEADER,
  DEVICE_SOCKET_PATH,
  parseRateHeader,
} from '../lib/device-protocol.ts';
import { startMongoStandin, type MongoStandin } from '../dev/mongo-standin/server.ts';

const test = suite('backend device socket');
// One backend (and stand-in) for the file: each test speaks for devices of its own (`dev-1` of test 3 is
// `t3-dev-1`) and reads only the log lines written since it began, so what one test leaves cannot pass another.
// The tests that stop a backend or need a second one start their own (`own`).
let backend: Service;
let mongo: MongoStandin;
let prefix = '';
let since = 0;
let tests = 0;
const sockets: OpenSocket[] = [];
const own: Service[] = [];

test.before(async () => {
  mongo = await startMongoStandin();
  backend = await startReadyBackend(mongo.url, { LOG_LEVEL: 'debug' });
});
test.before.each(() => {
  prefix = `t${++tests}-`;
  since = backend.stdout.length;
});
test.after.each(async () => {
  for (const { ws } of sockets.splice(0)) ws.close(1000);
  await Promise.all(own.splice(0).map((service) => service.stop()));
});
test.after(async () => {
  await stopAll();
  await mongo.close();
});

const connect = async (url = backend.url) => {
  const socket = await openSocket(url);
  sockets.push(socket);
  return socket;
};
const ownBackend = async (env: Record<string, string> = {}) => {
  const started = await startReadyBackend(mongo.url, env);
  own.push(started);
  return started;
};
const hello = (deviceId = 'dev-1', session = 's1') =>
  JSON.stringify({ type: 'hello', deviceId: prefix + deviceId, session });
const reading = (seq: number, session = 's1', deviceId = 'dev-1') =>
  JSON.stringify({
    type: 'reading',
    deviceId: prefix + deviceId,
    session,
    seq,
    timestamp: new Date().toISOString(),
    value: `v${seq}`,
  });
const acks = (messages: Array<Record<string, any>>) => messages.map((m) => `${m.session}:${m.seq}`);
/** Waits for an ack of `session` up to `seq` (acks are cumulative: one may cover several readings). */
const ackedUpTo = (messages: Array<Record<string, any>>, session: string, seq: number) =>
  waitFor(() => messages.some((m) => m.type === 'ack' && m.session === session && m.seq >= seq), {
    timeout: 5000,
    what: `an ack of ${session} up to ${seq}`,
  });
/** The devices this test spoke for, as the shared backend lists them, without the test's prefix. */
const devices = async () =>
  ((await (await fetch(`${backend.url}/api/devices`, { headers: READ_AUTH })).json()).devices as any[])
    .filter((d) => d.deviceId.startsWith(prefix))
    .map((d) => ({ ...d, deviceId: d.deviceId.slice(prefix.length) }));
/** The backend's log lines since this test began. */
const lines = () => jsonLines(backend).slice(since);
const stored = () =>
  lines()
    .filter((l) => l.msg === 'readings stored' && String(l.deviceId).startsWith(prefix))
    .flatMap((l) => l.readings.map((r: { session: string; seq: number }) => `${r.session}:${r.seq}`));
const logged = (text: string) => lines().filter((l) => String(l.msg).includes(text));

test('readings are stored once, in order, then acked; a resend is acked but not stored again', async () => {
  const { ws, messages } = await connect();
  ws.send(hello());
  for (const seq of [1, 2, 3, 2, 3, 4]) ws.send(reading(seq));
  await ackedUpTo(messages, 's1', 4);
  // Cumulative: each ack names the session and the highest seq finished; they never go backwards.
  const seqs = messages.map((m) => m.seq);
  assert.ok(
    messages.every((m) => m.type === 'ack' && m.session === 's1'),
    JSON.stringify(messages),
  );
  assert.equal(
    seqs,
    [...seqs].sort((a, b) => a - b),
  );
  const [device] = await devices();
  assert.is(device.deviceId, 'dev-1');
  assert.is(device.connected, true);
  assert.equal(device.lastReading.seq, 4);
  assert.is(device.lastReading.value, 'v4');
  assert.is(device.readingsStored, 4);
  await waitFor(() => stored().length === 4, { timeout: 2000, what: 'four stored readings' });
  assert.equal(stored(), ['s1:1', 's1:2', 's1:3', 's1:4']);
  ws.close(1000);
  await waitFor(async () => (await devices())[0].connected === false, {
    timeout: 2000,
    what: 'device marked disconnected',
  });
});

test('the upgrade is logged with the status the device got: 101 Switching Protocols', async () => {
  const { ws } = await connect();
  const upgrade = () => lines().find((l) => l.msg === 'request completed' && l.req.url === DEVICE_SOCKET_PATH);
  const line = await waitFor(upgrade, { timeout: 2000, what: 'the upgrade request logged' });
  assert.is(line.res.statusCode, 101);
  assert.is(line.level, 20); // device-socket requests are logged at debug: the hub logs what matters about them
  ws.close(1000);
});

test("the upgrade's answer says the socket's message rate and in-flight bound, to keep under", async () => {
  const { ws, headers } = await connect();
  assert.is(headers[DEVICE_RATE_HEADER], '100;burst=400');
  assert.equal(parseRateHeader(headers[DEVICE_RATE_HEADER] as string), DEVICE_MESSAGE_RATE);
  assert.is(headers[DEVICE_IN_FLIGHT_HEADER], '4000');
  ws.close(1000);
});

test("the previous session's rest on another replica after a refusal, then the new one's: each acked", async () => {
  const first = await connect();
  first.ws.send(hello('dev-1', 'old'));
  for (const seq of [1, 2, 3]) first.ws.send(reading(seq, 'old'));
  // The last one refused (far future): no stored reading says where the ack ended, the device's summary does.
  first.ws.send(JSON.stringify({ ...JSON.parse(reading(4, 'old')), timestamp: '2099-01-01T00:00:00Z' }));
  await ackedUpTo(first.messages, 'old', 4);
  assert.equal(first.messages.at(-1), { type: 'ack', session: 'old', seq: 4, refused: [4] });
  first.ws.close(1000);
  // Another replica on the same database: it learns from the store that old is settled to 4, so old:5 is acked.
  const other = await ownBackend();
  const { ws, messages } = await connect(other.url);
  ws.send(hello('dev-1', 'new'));
  ws.send(reading(5, 'old'));
  ws.send(reading(1, 'new'));
  await ackedUpTo(messages, 'old', 5);
  await ackedUpTo(messages, 'new', 1);
  assert.equal(acks(messages).sort(), ['new:1', 'old:5']);
  const [device] = await devices();
  assert.is(device.session, 'new');
  assert.is(device.readingsStored, 5);
});

test('a message naming a second device closes the socket with 1008; nothing of it is stored', async () => {
  const { ws, messages, closed } = await connect();
  ws.send(hello('dev-1'));
  ws.send(reading(1));
  await ackedUpTo(messages, 's1', 1);
  ws.send(reading(1, 's1', 'dev-2'));
  assert.equal(await withDeadline(closed, 3000, 'socket close'), { code: 1008, reason: 'one device per socket' });
  assert.equal(acks(messages), ['s1:1']);
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

test(
  'malformed messages are ignored and summed into one warning, not one line each; ' + 'the socket stays open',
  async () => {
    const { ws, messages } = await connect();
    ws.send(hello());
    for (let i = 0; i < 50; i++) ws.send(i % 2 ? 'not json' : JSON.stringify({ type: 'reading', seq: 'x' }));
    ws.send(reading(1));
    await ackedUpTo(messages, 's1', 1);
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
    // Each line names the rule the latest message broke: the first had no deviceId, the last was not JSON.
    assert.equal(
      warnings.map((l) => l.reason),
      ["deviceId is not letters, digits, '.', '_' and '-', 1 to 256 characters", 'not a JSON object'],
    );
    assert.is(warnings[1]!.msg, 'ignored 49 malformed device messages');
  },
);

const OVER_BURST = `more than the burst of ${DEVICE_MESSAGE_RATE.burst} messages at once`;
test(`${OVER_BURST} closes the socket with 1008 and one warning`, async () => {
  const { ws, closed } = await connect();
  ws.send(hello());
  for (let seq = 1; seq <= 2 * DEVICE_MESSAGE_RATE.burst; seq++) ws.send(reading(seq));
  assert.equal(await withDeadline(closed, 3000, 'socket close'), { code: 1008, reason: 'message rate exceeded' });
  await waitFor(() => logged('over its message rate').length === 1, { timeout: 2000, what: 'one warning' });
  assert.is(logged('over its message rate').length, 1);
  // hello + 399 readings fit the burst (plus what refilled meanwhile); the rest were never taken. Frames still
  // waiting for their slice when the socket is closed go with it, so the device may not even be listed.
  const [device] = await devices();
  const stored = device?.readingsStored ?? 0;
  assert.ok(stored < 1.5 * DEVICE_MESSAGE_RATE.burst, `${stored} stored`);
});

test('the rate counts frames, not readings: 10,000 readings in frames of 500, as a backlog comes', async () => {
  const { ws, messages } = await connect();
  ws.send(hello());
  const at = new Date().toISOString();
  const acked = () => Math.max(0, ...messages.map((m) => m.seq));
  // At most DEVICE_UNACKED_IN_FLIGHT (2000) ahead of the last ack, as the protocol asks of the device.
  for (let sent = 0; sent < 10_000; sent += 500) {
    await waitFor(() => sent + 500 - acked() <= 2000, { timeout: 5000, what: `room to send after ${sent}` });
    const readings = Array.from({ length: 500 }, (_, i) => ({ seq: sent + i + 1, timestamp: at, value: 'v' }));
    ws.send(JSON.stringify({ type: 'readings', deviceId: `${prefix}dev-1`, session: 's1', readings }));
  }
  await ackedUpTo(messages, 's1', 10_000);
  assert.is((await devices())[0].readingsStored, 10_000);
});

test('a frame over 64 KiB is closed with 1009; one just under is fine; a value over 8 KiB refused', async () => {
  const { ws, messages, closed } = await connect();
  ws.send(hello());
  const at = new Date().toISOString();
  const readings = Array.from({ length: 6 }, (_, i) => ({ seq: i + 1, timestamp: at, value: 'x'.repeat(8 * 1024) }));
  readings.push({ seq: 7, timestamp: at, value: 'y'.repeat(8 * 1024 + 1) });
  const frame = JSON.stringify({ type: 'readings', deviceId: `${prefix}dev-1`, session: 's1', readings });
  assert.ok(frame.length > 56 * 1024 && frame.length <= 64 * 1024, `${frame.length} bytes`);
  ws.send(frame);
  await ackedUpTo(messages, 's1', 7);
  assert.equal(messages, [{ type: 'ack', session: 's1', seq: 7, refused: [7] }]);
  assert.is((await devices())[0].readingsStored, 6);
  ws.send('x'.repeat(1024 * 1024));
  assert.is((await withDeadline(closed, 3000, 'socket close')).code, 1009);
});

test('a reading stamped over 5 minutes ahead is refused in the ack and never becomes the latest', async () => {
  const { ws, messages } = await connect();
  ws.send(hello());
  const now = Date.now();
  const readings = [
    { seq: 1, timestamp: new Date(now).toISOString(), value: 'now' },
    { seq: 2, timestamp: new Date(now + 4 * 60_000).toISOString(), value: 'a clock 4 minutes fast' },
    { seq: 3, timestamp: '2099-01-01T00:00:00Z', value: 'far future' },
  ];
  ws.send(JSON.stringify({ type: 'readings', deviceId: `${prefix}dev-1`, session: 's1', readings }));
  await ackedUpTo(messages, 's1', 3);
  assert.equal(messages, [{ type: 'ack', session: 's1', seq: 3, refused: [3] }]);
  const [device] = await devices();
  assert.equal([device.readingsStored, device.lastReading.seq], [2, 2]);
  // Summed: the line may come up to 5 s later when another test's refusal was logged just before.
  await waitFor(() => logged('refused 1 reading').some((l) => l.deviceId === `${prefix}dev-1`), {
    timeout: 8000,
    what: 'the refusal logged (summed)',
  });
});

test('frames out of order on one socket: no ack claims a reading before it came; each stored once', async () => {
  const { ws, messages } = await connect();
  ws.send(hello());
  const frame = (...seqs: number[]) =>
    JSON.stringify({
      type: 'readings',
      deviceId: `${prefix}dev-1`,
      session: 's1',
      readings: seqs.map((seq) => ({
        seq,
        timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
        value: `v${seq}`,
      })),
    });
  ws.send(frame(5, 6));
  ws.send(frame(1, 2));
  await ackedUpTo(messages, 's1', 2);
  // Before: `ack 6` for 5,6, claiming 1-4 stored before any of them came.
  assert.equal(acks(messages), ['s1:2'], JSON.stringify(messages));
  await waitFor(() => stored().length === 4, { timeout: 2000, what: 'four stored readings' });
  assert.equal(stored().sort(), ['s1:1', 's1:2', 's1:5', 's1:6'], '5 and 6 are stored though not acked');
  ws.send(frame(3, 4));
  await ackedUpTo(messages, 's1', 6);
  ws.send(frame(7));
  await ackedUpTo(messages, 's1', 7);
  ws.send(frame(1, 2));
  await waitFor(() => messages.length === 4, { timeout: 5000, what: 'the ack of the frame that went back' });
  assert.equal(acks(messages), ['s1:2', 's1:6', 's1:7', 's1:7']);
  await waitFor(() => stored().length === 7, { timeout: 2000, what: 'seven stored readings' });
  const [device] = await devices();
  assert.equal([device.readingsStored, device.lastReading.seq], [7, 7]);
});

test('on SIGTERM device sockets are closed with 1001 (going away) and the backend exits 0', async () => {
  const stopping = await ownBackend({ LOG_LEVEL: 'debug' });
  const { ws, closed } = await connect(stopping.url);
  ws.send(hello());
  const silent = await connect(stopping.url); // one that has not said hello yet is closed too
  stopping.signal('SIGTERM');
  assert.is((await withDeadline(closed, 5000, 'socket close')).code, 1001);
  assert.is((await withDeadline(silent.closed, 5000, 'socket close')).code, 1001);
  assert.is(await stopping.waitExit(10_000), 0);
});

/** The nice value of each of `pid`'s threads (Linux: the 19th field of /proc/<pid>/task/<tid>/stat). */
function threadNiceValues(pid: number): Map<number, number> {
  const values = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    values.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return values;
}

test('the device thread runs 10 nice levels below the thread that answers probes', async () => {
  // A backend of its own: threads the device thread starts later inherit its nice value.
  const fresh = await ownBackend();
  const nice = threadNiceValues(fresh.pid);
  const main = nice.get(fresh.pid)!;
  assert.is(main, 0, 'the main thread at the nice value it was started with');
  const lowered = [...nice.values()].filter((value) => value === main + 10);
  assert.is(lowered.length, 1, JSON.stringify([...nice]));
});

test.run();
