// Hostile `lost` declarations against the backend as a real process on the MongoDB stand-in: reversed, past-the-end
// and too-wide ranges are ignored with the rule each breaks named, in a warning summed however many come, and nothing
// of them is recorded; a flood of declarations from one socket is answered within its burst and then closed with
// 1008, and what it left recorded is counted once. The store's own bound (100,000 ranges a session) is tested
// beside the code (backend/readings/reading-store.test.ts, backend/writer/reading-writer.test.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MongoClient } from 'mongodb';
import { startMongoStandin, type MongoStandin } from '../dev/mongo-standin/server.ts';
import type { Service } from './support/spawn-service.ts';
import { startReadyBackend } from './support/ready-backend.ts';
import { waitFor, withDeadline } from './support/deadline.ts';
import { stopAll } from './support/spawn-process.ts';
import { openSocket, type OpenSocket } from './support/device-socket.ts';
import { jsonLines } from './support/device-services.ts';
import { DEVICE_MESSAGE_RATE, DEVICE_SEQ_MAX, LOST_RANGE_SPAN_MAX } from '../lib/device-protocol.ts';

const test = suite('backend lost declarations');
let mongo: MongoStandin;
let client: MongoClient;
let backend: Service;
let since = 0;

test.before(async () => {
  mongo = await startMongoStandin();
  client = new MongoClient(mongo.url);
  backend = await startReadyBackend(mongo.url);
});
test.before.each(() => {
  since = backend.stdout.length;
});
test.after(async () => {
  await client.close();
  await stopAll();
  await mongo.close();
});

const lost = (deviceId: string, ranges: unknown, session = 's1') =>
  JSON.stringify({ type: 'lost', deviceId, session, reason: 'evicted', ranges });

async function device(deviceId: string, session = 's1'): Promise<OpenSocket> {
  const socket = await openSocket(backend.url);
  socket.ws.send(JSON.stringify({ type: 'hello', deviceId, session }));
  return socket;
}

const warnings = (msg: RegExp) =>
  jsonLines(backend)
    .slice(since)
    .filter((l) => l.level === 40 && msg.test(l.msg));

/** What the database holds for `deviceId`: its recorded ranges (of `session`) and the lost count of its summary. */
async function recorded(deviceId: string, session = 's1') {
  const db = client.db('app');
  const ranges = await db
    .collection('losses')
    .find({ deviceId, session }, { sort: { from: 1 } })
    .toArray();
  const [summary] = await db
    .collection('devices')
    .find({ _id: deviceId as never })
    .toArray();
  return {
    ranges: ranges.map(({ from, to, lost: count }) => [from, to, count]),
    readingsLost: summary?.readingsLost ?? 0,
  };
}

const acked = (socket: OpenSocket, seq: number, session = 's1') =>
  waitFor(() => socket.messages.some((m) => m.type === 'ack' && m.session === session && m.seq >= seq), {
    timeout: 10_000,
    what: `an ack of ${seq}`,
  });

test('reversed, past-the-end and too-wide ranges: each ignored with its rule named, one summed warning', async () => {
  const socket = await device('hostile-ranges');
  socket.ws.send(lost('hostile-ranges', [[10, 5]]));
  socket.ws.send(lost('hostile-ranges', [[DEVICE_SEQ_MAX - 1, DEVICE_SEQ_MAX + 1]]));
  socket.ws.send(lost('hostile-ranges', [[1, LOST_RANGE_SPAN_MAX + 1]]));
  socket.ws.send(
    lost('hostile-ranges', [
      [5, 9],
      [7, 12],
    ]),
  );
  // The first at once, with its rule; the other three in one line when the interval ends, naming the latest.
  await waitFor(() => warnings(/malformed device message/).length >= 2, {
    timeout: 15_000,
    what: 'the summed warning of the ignored declarations',
  });
  const [first, summed] = warnings(/malformed device message/);
  assert.is(first!.msg, 'ignored 1 malformed device message');
  assert.is(first!.reason, 'ranges[0]: from is above to');
  assert.is(summed!.msg, 'ignored 3 malformed device messages');
  assert.is(summed!.reason, 'ranges[1]: not above the range before');
  assert.equal(await recorded('hostile-ranges'), { ranges: [], readingsLost: 0 });
  // The socket stays open and a declaration within the rules is recorded and acknowledged past.
  socket.ws.send(lost('hostile-ranges', [[1, 5]]));
  await acked(socket, 5);
  assert.equal(await recorded('hostile-ranges'), { ranges: [[1, 5, 5]], readingsLost: 5 });
  socket.ws.close();
});

test('a flood of declarations from one socket: answered within its burst, then closed with 1008', async () => {
  const socket = await device('flooder');
  // Each a range of its own, a number apart, so that none merges: every one read is a range recorded.
  const flood = DEVICE_MESSAGE_RATE.burst * 3;
  for (let i = 0; i < flood; i++) socket.ws.send(lost('flooder', [[2 * i + 2, 2 * i + 2]]));
  const closed = await withDeadline(socket.closed, 15_000, 'the flooding socket closed');
  assert.equal(closed, { code: 1008, reason: 'message rate exceeded' });
  assert.is(warnings(/over its message rate/).length, 1);
  // What was read before the close is recorded once, or dropped with the socket (on a busy machine, all of it);
  // never more than the burst. Settled by the device's next write: its writes go one at a time, in order, so once a
  // declaration of another session is acknowledged, every write of the flood's socket has ended.
  const settle = await device('flooder', 's2');
  settle.ws.send(lost('flooder', [[1, 1]], 's2'));
  await acked(settle, 1, 's2');
  settle.ws.close();
  const { ranges, readingsLost } = await recorded('flooder');
  assert.ok(ranges.length <= DEVICE_MESSAGE_RATE.burst, `${ranges.length} ranges recorded`);
  assert.ok(
    ranges.every(([from, to, count]) => from === to && count === 1),
    'each range one number, counted once',
  );
  assert.is(readingsLost, ranges.length + 1, 'the summary counts each recorded range once, and the settling one');
  // The backend answers another device as before.
  const other = await device('after-the-flood');
  other.ws.send(lost('after-the-flood', [[1, 3]]));
  await acked(other, 3);
  other.ws.close();
});

test.run();
