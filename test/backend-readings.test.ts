// Readings kept: the backend as a real process on the in-process MongoDB stand-in. Readings are in the database
// before they are acknowledged, a frame is one insert, a resend makes no second document, nothing is acknowledged
// while the database hangs (and the backend holds a bounded amount meanwhile), and what is stored is read back,
// also by a backend started afterwards.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MongoClient, type Document } from 'mongodb';
import { startMongoStandin, type MongoStandin } from '../dev/mongo-standin/server.ts';
import { READ_AUTH, type Service } from './support/spawn-service.ts';
import { startReadyBackend } from './support/ready-backend.ts';
import { waitFor, withDeadline } from './support/deadline.ts';
import { stopAll } from './support/spawn-process.ts';
import { openSocket, type OpenSocket } from './support/device-socket.ts';
import { jsonLines } from './support/device-services.ts';
import { DEVICE_UNACKED_IN_FLIGHT } from '../lib/device-protocol.ts';

const test = suite('backend readings');
// One stand-in and one backend for the file: each test writes as a device of its own (`t3-dev-1` in test 3) and
// looks only at its own inserts, devices and the log lines written since it began. The restart test starts its
// own pair of backends.
let mongo: MongoStandin;
let shared: Service;
let dev = '';
let since = 0;
let tests = 0;
const allInserts: Document[] = [];
/** This test's insert commands, as the stand-in received them. */
const inserts = () => allInserts.filter((c) => (c.documents as Document[])[0]?.deviceId === dev);

test.before(async () => {
  mongo = await startMongoStandin({ onCommand: (command) => 'insert' in command && allInserts.push(command) });
  shared = await startReadyBackend(mongo.url);
});
test.before.each(async () => {
  dev = `t${++tests}-dev-1`;
  since = shared.stdout.length;
  // A test that hung the database leaves it resumed: the shared backend is connected again before the next.
  await waitFor(async () => (await fetch(`${shared.url}/api/ready`)).status === 200, {
    timeout: 10_000,
    what: 'the shared backend ready',
  });
});
test.after.each(() => mongo.resume());
test.after(async () => {
  await stopAll();
  await mongo.close();
});

const AT = '2026-03-01T12:00:00.000Z';
const frame = (from: number, count: number, session = 's1', timestamp = AT) =>
  JSON.stringify({
    type: 'readings',
    deviceId: dev,
    session,
    readings: Array.from({ length: count }, (_, i) => ({ seq: from + i, timestamp, value: `line ${from + i}` })),
  });
const hello = (session = 's1') => JSON.stringify({ type: 'hello', deviceId: dev, session });
const ackedUpTo = (socket: OpenSocket, seq: number, session = 's1') =>
  waitFor(() => socket.messages.some((m) => m.type === 'ack' && m.session === session && m.seq >= seq), {
    timeout: 10_000,
    what: `an ack of ${session} up to ${seq}`,
  });
/** GET `path`; a list of devices holds only this test's device. */
const get = async (backend: Service, path: string) => {
  const res = await withDeadline(fetch(`${backend.url}${path}`, { headers: READ_AUTH }), 10_000, `GET ${path}`);
  const body = (await res.json()) as Record<string, any>;
  if (Array.isArray(body.devices)) body.devices = body.devices.filter((d: { deviceId: string }) => d.deviceId === dev);
  return { status: res.status, body };
};
/** Warnings logged since the test began (the shared backend's, from its start). */
const warnings = (backend: Service, text: string) =>
  jsonLines(backend)
    .slice(backend === shared ? since : 0)
    .filter((l) => l.level === 40 && String(l.msg).includes(text));

test('a frame of 300 readings is one insert, acknowledged once it is stored; the fields as documented', async () => {
  const backend = shared;
  const socket = await openSocket(backend.url);
  socket.ws.send(hello());
  socket.ws.send(frame(1, 300));
  await ackedUpTo(socket, 300);
  assert.equal(socket.messages, [{ type: 'ack', session: 's1', seq: 300 }]);
  assert.equal(
    inserts().map((c) => [c.insert, (c.documents as Document[]).length, c.ordered, c.writeConcern]),
    [['readings', 300, false, { w: 'majority', j: true, wtimeout: 5000 }]],
  );
  const client = new MongoClient(mongo.url);
  const [first] = await client.db('app').collection('readings').find({ deviceId: dev, seq: 1 }).toArray();
  await client.close();
  assert.equal(Object.keys(first!), ['_id', 'deviceId', 'session', 'seq', 'timestamp', 'value', 'receivedAt']);
  assert.instance(first!.timestamp, Date, 'timestamp is a BSON date');
  assert.instance(first!.receivedAt, Date, 'receivedAt is a BSON date');
  const { status, body } = await get(backend, `/api/readings?deviceId=${dev}&limit=2`);
  assert.is(status, 200);
  assert.equal(
    body.readings.map((r: { seq: number }) => r.seq),
    [300, 299],
  );
  assert.equal(Object.keys(body.readings[0]), ['deviceId', 'session', 'seq', 'timestamp', 'value', 'receivedAt']);
  assert.is(body.readings[0].timestamp, AT);
  assert.is(body.readings[0].value, 'line 300');
});

test('a resend after a reconnect is acknowledged and makes no second document', async () => {
  const backend = shared;
  const first = await openSocket(backend.url);
  first.ws.send(hello());
  first.ws.send(frame(1, 50));
  await ackedUpTo(first, 50);
  first.ws.close();
  const second = await openSocket(backend.url);
  second.ws.send(hello());
  second.ws.send(frame(40, 20)); // 40–50 again, 51–59 new
  await ackedUpTo(second, 59);
  const { body } = await get(backend, '/api/devices');
  assert.is(body.devices[0].readingsStored, 59);
  const { body: page } = await get(backend, `/api/readings?deviceId=${dev}&limit=1000`);
  assert.equal(
    page.readings.map((r: { seq: number }) => r.seq),
    Array.from({ length: 59 }, (_, i) => 59 - i),
  );
});

test('a backlog drains at database speed: inserts of whole frames, never a round trip per reading', async () => {
  const backend = shared;
  const socket = await openSocket(backend.url);
  socket.ws.send(hello());
  const TOTAL = 20_000;
  const PER_FRAME = 500;
  const acked = () => Math.max(0, ...socket.messages.map((m) => m.seq));
  const started = performance.now();
  // No more than DEVICE_UNACKED_IN_FLIGHT (2000) ahead of the last ack, as the device does.
  for (let sent = 0; sent < TOTAL; sent += PER_FRAME) {
    await waitFor(() => sent + PER_FRAME - acked() <= 2000, {
      timeout: 10_000,
      interval: 1,
      what: `room after ${sent}`,
    });
    socket.ws.send(frame(sent + 1, PER_FRAME));
  }
  await ackedUpTo(socket, TOTAL);
  const ms = performance.now() - started;
  const sizes = inserts().map((c) => (c.documents as Document[]).length);
  console.log(
    `    measured: ${TOTAL} readings in frames of ${PER_FRAME} stored and acked in ${ms.toFixed(0)} ms ` +
      `(${Math.round((TOTAL / ms) * 1000)}/s) with ${sizes.length} inserts ` +
      `of ${Math.min(...sizes)}–${Math.max(...sizes)}`,
  );
  assert.ok(sizes.length <= TOTAL / PER_FRAME, `${sizes.length} inserts for ${TOTAL / PER_FRAME} frames`);
  assert.ok(
    sizes.every((n) => n % PER_FRAME === 0),
    `a frame was split: ${sizes.join(', ')}`,
  );
  assert.is((await get(backend, '/api/devices')).body.devices[0].readingsStored, TOTAL);
});

test('while the database hangs nothing is acked and reads answer 503; afterwards all is stored once', async () => {
  const backend = shared;
  const socket = await openSocket(backend.url);
  socket.ws.send(hello());
  socket.ws.send(frame(1, 10));
  await ackedUpTo(socket, 10);
  mongo.hang();
  for (let from = 11; from <= 1000; from += 110) socket.ws.send(frame(from, 110));
  for (const path of [`/api/readings?deviceId=${dev}`, '/api/devices']) {
    const { status, body } = await get(backend, path);
    assert.is(status, 503, path);
    assert.equal(Object.keys(body), ['error']);
    assert.match(body.error, /^database unavailable: [^\n]+$/);
  }
  await waitFor(() => warnings(backend, 'of readings failed').length > 0, { timeout: 10_000, what: 'a failed write' });
  assert.equal(
    socket.messages.map((m) => m.seq),
    [10],
    'nothing acknowledged while the database hangs',
  );
  const before = inserts().length;
  mongo.resume();
  await ackedUpTo(socket, 1000);
  const { body } = await get(backend, '/api/devices');
  assert.is(body.devices[0].readingsStored, 1000);
  // The 990 held readings went out together, not a round trip per frame.
  assert.ok(inserts().length - before <= 3, `${inserts().length - before} inserts after the database came back`);
  const summed = warnings(backend, 'of readings failed');
  assert.ok(summed.length <= 3, `${summed.length} warning lines for the failed writes`);
});

test('past twice DEVICE_UNACKED_IN_FLIGHT held readings the socket is closed with 1013 and one warning', async () => {
  const backend = shared;
  const socket = await openSocket(backend.url);
  socket.ws.send(hello());
  mongo.hang();
  const heldMax = 2 * DEVICE_UNACKED_IN_FLIGHT;
  for (let from = 1; from <= heldMax + 500; from += 500) socket.ws.send(frame(from, 500));
  const closed = await withDeadline(socket.closed, 10_000, 'the socket closed');
  assert.equal(closed, { code: 1013, reason: 'too many readings held; resend later' });
  assert.equal(socket.messages, []);
  await waitFor(() => warnings(backend, 'dropped the readings held').length === 1, {
    timeout: 5000,
    what: 'the warning',
  });
  const [line] = warnings(backend, 'dropped the readings held');
  assert.is(line!.why, `over ${heldMax} readings held`);
  mongo.resume();
  // The device resends after reconnecting: stored then, once.
  const again = await openSocket(backend.url);
  again.ws.send(hello());
  for (let from = 1; from <= 2000; from += 500) again.ws.send(frame(from, 500));
  await ackedUpTo(again, 2000);
});

test('what is stored survives a backend restart: /api/devices and /api/readings read the database', async () => {
  const first = await startReadyBackend(mongo.url);
  const socket = await openSocket(first.url);
  socket.ws.send(hello('s1'));
  socket.ws.send(frame(1, 5, 's1'));
  const LATER = '2026-03-01T12:05:00.000Z';
  socket.ws.send(frame(1, 3, 's2', LATER));
  await ackedUpTo(socket, 3, 's2');
  await first.stop();
  const second = await startReadyBackend(mongo.url);
  const { status, body } = await get(second, '/api/devices');
  assert.is(status, 200);
  const [newest] = (await get(second, `/api/readings?deviceId=${dev}&limit=1`)).body.readings;
  assert.equal(body.devices, [
    {
      deviceId: dev,
      session: 's2',
      connected: false,
      // Its time of receipt as the readings list gives it: the order "latest" follows.
      lastReading: { seq: 3, timestamp: LATER, value: 'line 3', receivedAt: newest.receivedAt },
      readingsStored: 8,
      readingsLost: 0,
      backlog: null,
      lastSeenAt: body.devices[0].lastSeenAt,
    },
  ]);
  assert.ok(Date.parse(body.devices[0].lastSeenAt) > 0, 'when the first backend last heard from it');
  const { body: older } = await get(second, `/api/readings?deviceId=${dev}&before=3`);
  assert.equal(
    older.readings.map((r: { session: string; seq: number }) => `${r.session}:${r.seq}`),
    ['s2:2', 's2:1'],
  );
  // Paging back by the time of receipt: before the first reading of s2 came, s1's.
  const { body: all } = await get(second, `/api/readings?deviceId=${dev}`);
  const s2First = all.readings.find((r: { session: string; seq: number }) => r.session === 's2' && r.seq === 1);
  const { body: earlier } = await get(second, `/api/readings?deviceId=${dev}&before=${s2First.receivedAt}&limit=2`);
  assert.equal(
    earlier.readings.map((r: { session: string; seq: number }) => `${r.session}:${r.seq}`),
    ['s1:5', 's1:4'],
  );
  const { body: none } = await get(second, `/api/readings?deviceId=${dev}&before=2026-03-01T12:00:00Z`);
  assert.equal(none, { readings: [] });
});

test('a device clock gone back or ahead neither pins nor hides its newest: latest is the last received', async () => {
  const backend = shared;
  const now = Date.now();
  const iso = (ms: number) => new Date(now + ms).toISOString();
  const DAY = 86_400_000;
  const sessions: Array<[string, string]> = [
    ['ahead', iso(4 * 60_000)], // 4 minutes ahead: within the tolerance, stored
    ['behind', iso(-DAY)], // the next session a day behind
    ['right', iso(0)], // and then right again
  ];
  const shown: string[] = [];
  for (const [session, timestamp] of sessions) {
    const socket = await openSocket(backend.url);
    socket.ws.send(hello(session));
    socket.ws.send(frame(1, 3, session, timestamp));
    await ackedUpTo(socket, 3, session);
    socket.ws.close();
    const { body: listed } = await get(backend, '/api/devices');
    const { body: read } = await get(backend, `/api/readings?deviceId=${dev}&limit=1`);
    const [first] = read.readings;
    shown.push(`${listed.devices[0].lastReading.timestamp}#${listed.devices[0].lastReading.seq} ${first.session}`);
    const receivedAt = first.receivedAt;
    assert.equal(listed.devices[0].lastReading, { seq: 3, timestamp, value: 'line 3', receivedAt }, `after ${session}`);
    assert.equal([first.session, first.seq, first.timestamp], [session, 3, timestamp], `after ${session}`);
  }
  assert.equal(shown, [`${iso(240_000)}#3 ahead`, `${iso(-DAY)}#3 behind`, `${iso(0)}#3 right`]);
  const { body: all } = await get(backend, `/api/readings?deviceId=${dev}`);
  assert.equal(
    all.readings.map((r: { session: string; seq: number }) => `${r.session}:${r.seq}`),
    ['right:3', 'right:2', 'right:1', 'behind:3', 'behind:2', 'behind:1', 'ahead:3', 'ahead:2', 'ahead:1'],
    'newest received first',
  );
});

test.run();
