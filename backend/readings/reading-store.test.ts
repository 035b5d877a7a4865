// The reading store against the in-process stand-in, or the real server MONGO_TEST_URI names (the container tests
// run this file against the mongo image): indexes, the insert the backend sends and what a resend gives, the
// queries behind /api/readings and /api/devices, and a database that is away or hung; the write deadline's test
// runs a stand-in process of its own, which answers while this one is blocked.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { commandShape, mongoTarget, type MongoTarget } from '../../test/support/mongo-target.ts';
import { rejection, waitFor, withDeadline } from '../../test/support/deadline.ts';
import { startMongoProcess } from '../../test/support/mongo-process.ts';
import { freePort } from '../../tools/free-port.ts';
import { MongoClient } from 'mongodb';
import { DatabaseUnavailableError } from '../database/database-unavailable-error.ts';
import type { ReadingDocument } from './reading-document.ts';
import { createReadingStore, READINGS_COLLECTION, type ReadingStore } from './reading-store.ts';
import { LossRefusedError } from './loss-refusal.ts';

let target: MongoTarget;
const test = suite('reading store');

test.before(async () => {
  target = await mongoTarget();
  console.log(`    against the ${target.label}`);
});
test.after.each(() => target.standin?.resume());
test.after(() => target.close());

function setup({
  connected = (): boolean => true,
  queryTimeoutMs = 2000,
  socketTimeoutMS = 0,
  writeDeadlineMs = undefined as number | undefined,
  lossRangesKeptMax = undefined as number | undefined,
} = {}) {
  // A hung server must fail a new connection's handshake too: connectTimeoutMS, as the backend's monitor sets it.
  const { client, commands } = target.client({ socketTimeoutMS, connectTimeoutMS: 1000 });
  const databaseName = target.database();
  const isConnected = connected;
  const store = createReadingStore({
    client,
    databaseName,
    isConnected,
    uri: target.url,
    queryTimeoutMs,
    writeDeadlineMs,
    lossRangesKeptMax,
  });
  return { store, commands, client, db: client.db(databaseName) };
}

const T0 = Date.UTC(2026, 0, 1);
const doc = (seq: number, over: Partial<ReadingDocument> = {}): ReadingDocument => ({
  deviceId: 'dev-1',
  session: 's1',
  seq,
  timestamp: new Date(T0 + seq * 1000),
  value: `v${seq}`,
  receivedAt: new Date(T0 + seq * 1000 + 50),
  ...over,
});

test("ensureIndexes: the readings' two indexes and the device list's, once; again is a no-op", async () => {
  const { store, commands, db } = setup();
  await store.ensureIndexes();
  await store.ensureIndexes();
  const created = commands.filter((c) => c.commandName === 'createIndexes').map((c) => c.command.createIndexes);
  assert.equal(
    created.sort(),
    ['devices', 'losses', READINGS_COLLECTION],
    'one per collection; a second call does not ask again',
  );
  const indexes = await db.collection(READINGS_COLLECTION).listIndexes().toArray();
  assert.equal(
    indexes.map((i) => [i.name, i.unique === true]),
    [
      ['_id_', false],
      ['deviceId_1_session_1_seq_1', true],
      ['deviceId_1_receivedAt_-1_seq_-1', false],
    ],
  );
});

test('insert: one unordered insert with majority and journaling; a resend makes no second document', async () => {
  const { store, commands, db } = setup();
  assert.equal(await store.insert([doc(1), doc(2), doc(3)]), { inserted: 3, duplicates: [] });
  const [insert] = commands.filter((c) => c.commandName === 'insert');
  const shape = commandShape(insert!);
  assert.equal(
    { ...shape, documents: undefined },
    {
      insert: 'readings',
      ordered: false,
      writeConcern: { w: 'majority', j: true, wtimeout: 5000 },
      documents: undefined,
    },
  );
  // A resend: new objects (new ObjectIds), the same readings.
  assert.equal(await store.insert([doc(2), doc(4), doc(3)]), { inserted: 1, duplicates: [0, 2] });
  assert.equal(await store.insert([doc(1)]), { inserted: 0, duplicates: [0] });
  const stored = await db
    .collection(READINGS_COLLECTION)
    .find({}, { sort: { seq: 1 } })
    .toArray();
  assert.equal(
    stored.map(({ _id, ...rest }) => rest),
    [doc(1), doc(2), doc(3), doc(4)],
  );
  assert.equal(Object.keys(stored[0]!), ['_id', 'deviceId', 'session', 'seq', 'timestamp', 'value', 'receivedAt']);
});

const storedCount = async (db: ReturnType<MongoClient['db']>) =>
  (await db.collection<{ _id: string; readingsStored: number }>('devices').findOne({ _id: 'dev-1' }))?.readingsStored;

test('a batch stored but not counted (its summary write refused) is counted once when written again', async () => {
  let calls = 0;
  let refuseCall = 0;
  const { store, db } = setup({ connected: () => ++calls !== refuseCall });
  await store.ensureIndexes();
  refuseCall = calls + 2; // the readings' insert passes, the summary's write is refused
  const failed = await rejection(store.insert([doc(1), doc(2), doc(3)]));
  assert.instance(failed, DatabaseUnavailableError);
  assert.is((await db.collection(READINGS_COLLECTION).find({}).toArray()).length, 3);
  assert.is(await storedCount(db), undefined);
  // The writer writes the batch again: every reading a duplicate, and the three counted, once.
  assert.equal(await store.insert([doc(1), doc(2), doc(3)]), { inserted: 0, duplicates: [0, 1, 2] });
  assert.is(await storedCount(db), 3);
  await store.insert([doc(1), doc(4)]);
  assert.is(await storedCount(db), 4);
});

test('a summary write applied after its reply was lost is not counted twice when sent again', async () => {
  if (!target.standin) return; // only the stand-in can be hung in-process
  const standin = target.standin;
  const { store, db, client } = setup({ writeDeadlineMs: 400 });
  await store.ensureIndexes();
  // The summary's update reaches a hung database: its deadline passes, and it is applied on resume.
  client.on('commandStarted', (event) => {
    if (event.commandName === 'update' && event.command.update === 'devices') standin.hang();
  });
  const failed = await withDeadline(rejection(store.insert([doc(1), doc(2)])), 5000, 'an insert');
  assert.is(failed.message, 'the database did not acknowledge the device summary within 400 ms');
  client.removeAllListeners('commandStarted');
  standin.resume();
  await waitFor(async () => (await storedCount(db)) === 2, { what: 'the late summary applied' });
  assert.equal(await store.insert([doc(1), doc(2)]), { inserted: 0, duplicates: [0, 1] });
  assert.is(await storedCount(db), 2);
});

test('settled: that reading stored (one bounded find on the unique key), or a refusal mark at or past it', async () => {
  const { store, commands } = setup();
  await store.insert([doc(4), doc(5, { session: 's2' })]);
  assert.is(await store.settled('dev-1', 's1', 4), true);
  assert.is(await store.settled('dev-1', 's1', 5), false, 'another seq');
  assert.is(await store.settled('dev-1', 's2', 4), false, 'another session');
  assert.is(await store.settled('dev-2', 's1', 4), false, 'another device');
  // An ack that ended on a refused 9: 9 and below count as settled; the mark never steps back within a session.
  await store.refusedThrough('dev-1', 's1', 9);
  await store.refusedThrough('dev-1', 's1', 7);
  assert.is(await store.settled('dev-1', 's1', 9), true);
  assert.is(await store.settled('dev-1', 's1', 10), false);
  await store.refusedThrough('dev-1', 's3', 2);
  assert.is(await store.settled('dev-1', 's3', 2), true, 'a new session replaces the mark');
  await store.refusedThrough('dev-9', 's1', 1);
  assert.is(await store.settled('dev-9', 's1', 1), true, 'a device without a summary gets one');
  const [find] = commands.filter((c) => c.commandName === 'find' && c.command.find === READINGS_COLLECTION);
  const { filter, limit, maxTimeMS } = commandShape(find!);
  assert.equal(
    { filter, limit, maxTimeMS },
    { filter: { deviceId: 'dev-1', session: 's1', seq: 4 }, limit: 1, maxTimeMS: 2000 },
  );
});

test('recordLosses: counts what was never stored, once however often declared; settled holds the range', async () => {
  const { store } = setup();
  await store.insert([doc(3), doc(4)]);
  assert.is(await store.recordLosses('dev-1', 's1', 'evicted', [[1, 5]]), 3, '1, 2 and 5: 3 and 4 are stored');
  assert.is(await store.recordLosses('dev-1', 's1', 'evicted', [[1, 5]]), 0, 'declared again: counted once');
  assert.is(
    await store.recordLosses('dev-1', 's1', 'unwritten', [
      [2, 2],
      [5, 8],
    ]),
    3,
    'only 6..8 are new',
  );
  assert.is(await store.settled('dev-1', 's1', 7), true, 'in a declared range');
  assert.is(await store.settled('dev-1', 's1', 9), false);
  assert.is(await store.settled('dev-1', 's2', 7), false, 'another session');
  const { devices } = await store.devices({ limit: 10 });
  assert.equal(
    devices.map((d) => [d.deviceId, d.readingsStored, d.readingsLost]),
    [['dev-1', 2, 6]],
  );
  // A device never read from comes first among the silent ones: dev-1 is first only as one that lost readings.
  const at = new Date();
  await store.presence([
    { deviceId: 'dev-2', session: 's', connected: true, replica: 'r', connection: 'c', backlog: 0, at },
  ]);
  const attention = await store.devices({ attention: 10 });
  assert.equal(attention.devices[0]?.deviceId, 'dev-1', 'it lost readings lately: it needs attention');
});

test('recordLosses: what lies at or below the refusal mark is no loss: a refused reading is not counted', async () => {
  const { store } = setup();
  await store.insert([doc(1)]);
  await store.refusedThrough('dev-1', 's1', 3); // 2 and 3 were refused, and the ack said so
  assert.is(await store.recordLosses('dev-1', 's1', 'evicted', [[1, 5]]), 2, 'only 4 and 5');
  assert.is(await store.recordLosses('dev-1', 's2', 'evicted', [[1, 2]]), 2, 'the mark is of s1 alone');
  const { devices } = await store.devices({ limit: 10 });
  assert.equal(
    devices.map((d) => [d.deviceId, d.readingsStored, d.readingsLost]),
    [['dev-1', 1, 4]],
  );
});

test('recordLosses: touching and overlapping ranges are kept merged, each number counted once', async () => {
  const { store, db } = setup();
  await store.insert([doc(12)]);
  const declare = (...ranges: Array<[number, number]>) => store.recordLosses('dev-1', 's1', 'evicted', ranges);
  assert.is(await declare([1, 5]), 5);
  assert.is(await declare([6, 10]), 5, 'touching the one before');
  assert.is(await declare([20, 30]), 11, 'apart');
  assert.is(await declare([3, 8], [9, 21]), 8, 'overlapping both: only 11..19 are new, and 12 is stored');
  assert.is(await declare([1, 30]), 0, 'all of it again');
  const kept = await db
    .collection('losses')
    .find({ deviceId: 'dev-1' }, { sort: { from: 1 } })
    .toArray();
  assert.equal(
    kept.map(({ _id, from, to, lost }) => [_id, from, to, lost]),
    [['dev-1 s1 1', 1, 30, 29]],
    'one range of 30 numbers, 29 of them lost',
  );
  assert.is(await store.settled('dev-1', 's1', 25), true, 'in the merged range');
  const { devices } = await store.devices({ limit: 10 });
  assert.equal(
    devices.map((d) => [d.readingsStored, d.readingsLost]),
    [[1, 29]],
    'never more than the numbers covered',
  );
});

test('recordLosses: past the ranges kept per session a declaration is refused; merging ones still go in', async () => {
  const { store } = setup({ lossRangesKeptMax: 3 });
  const declare = (session: string, ...ranges: Array<[number, number]>) =>
    store.recordLosses('dev-1', session, 'evicted', ranges);
  assert.is(await declare('s1', [1, 1], [3, 3], [5, 5]), 3, 'three ranges: the most kept');
  const refused = await declare('s1', [7, 7]).catch((error: Error) => error);
  assert.instance(refused, LossRefusedError);
  assert.is((refused as Error).message, 'session s1 would keep 4 lost ranges, over the 3 kept per session');
  assert.is(await declare('s1', [2, 2], [4, 4], [6, 6]), 3, 'joining ranges keeps fewer: 1..6 is one');
  assert.is(await declare('s1', [8, 8], [10, 10]), 2, 'two more: three again');
  assert.is(await declare('s2', [1, 1], [3, 3], [5, 5]), 3, 'another session keeps its own');
  const { devices } = await store.devices({ limit: 10 });
  assert.equal(
    devices.map((d) => d.readingsLost),
    [11],
    'the refused declaration counted nothing',
  );
});

test("recordLosses: a device's lost count stops at 2^53 - 1, where a double still counts one by one", async () => {
  const { store } = setup();
  for (const session of ['s1', 's2', 's3']) {
    assert.is(await store.recordLosses('dev-1', session, 'evicted', [[1, 2 ** 52]]), 2 ** 52);
  }
  const { devices } = await store.devices({ limit: 10 });
  assert.equal(
    devices.map((d) => d.readingsLost),
    [Number.MAX_SAFE_INTEGER],
  );
});

test('readings: newest received first, then seq, whatever the device clock says; before a time or seq', async () => {
  const { store } = setup();
  const received = (ms: number) => new Date(T0 + 1_000_000 + ms);
  // The device's clock went back a day between its sessions: the new session's readings are stamped a day earlier.
  const dayBack = (seq: number) => new Date(T0 - 86_400_000 + seq * 1000);
  await store.insert([
    ...[1, 2, 3, 4, 5].map((seq) => doc(seq, { session: 'old', receivedAt: received(seq * 1000) })),
    ...[1, 2, 3].map((seq) =>
      doc(seq, { session: 'new', timestamp: dayBack(seq), receivedAt: received(10_000 + seq) }),
    ),
    // One frame: the same receipt time, told apart by seq.
    doc(4, { session: 'new', timestamp: dayBack(4), receivedAt: received(20_000) }),
    doc(5, { session: 'new', timestamp: dayBack(5), receivedAt: received(20_000) }),
    doc(1, { deviceId: 'dev-2', receivedAt: received(90_000) }),
  ]);
  const keys = (readings: { session: string; seq: number }[]) => readings.map((r) => `${r.session}:${r.seq}`);
  assert.equal(keys(await store.readings({ deviceId: 'dev-1', limit: 4 })), ['new:5', 'new:4', 'new:3', 'new:2']);
  const [first] = await store.readings({ deviceId: 'dev-1', limit: 1 });
  assert.equal(first, {
    deviceId: 'dev-1',
    session: 'new',
    seq: 5,
    timestamp: dayBack(5).toISOString(),
    value: 'v5',
    receivedAt: received(20_000).toISOString(),
  });
  assert.equal(keys(await store.readings({ deviceId: 'dev-1', limit: 100, before: { time: received(10_003) } })), [
    'new:2',
    'new:1',
    'old:5',
    'old:4',
    'old:3',
    'old:2',
    'old:1',
  ]);
  assert.equal(keys(await store.readings({ deviceId: 'dev-1', limit: 2, before: { seq: 5 } })), ['new:4', 'new:3']);
  assert.equal(keys(await store.readings({ deviceId: 'dev-1', limit: 100, before: { seq: 1 } })), []);
  assert.equal(await store.readings({ deviceId: 'nobody', limit: 10 }), []);
  assert.equal(await store.readings({ deviceId: 'nobody', limit: 10, before: { seq: 3 } }), []);
  // The device list agrees: the latest is the one received last, a day behind on the device's clock or not.
  const listed = (await store.devices({ limit: 10 })).devices.find((d) => d.deviceId === 'dev-1')!;
  assert.equal(listed.lastReading, {
    seq: 5,
    timestamp: dayBack(5).toISOString(),
    value: 'v5',
    receivedAt: received(20_000).toISOString(),
  });
});

test('devices: two commands a page at any fleet size; by id, all counted; latest never steps back', async () => {
  const { store, commands } = setup();
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on('warning', onWarning);
  try {
    for (const fleet of [12, 240]) {
      const ids = Array.from({ length: fleet }, (_, i) => `dev-${fleet}-${String(i).padStart(4, '0')}`);
      await store.insert(ids.flatMap((deviceId) => [doc(1, { deviceId }), doc(2, { deviceId })]));
      commands.length = 0;
      const listed: string[] = [];
      let after: string | undefined;
      let pages = 0;
      do {
        const page = await store.devices({ limit: 100, ...(after ? { after } : {}) });
        listed.push(...page.devices.map((d) => d.deviceId));
        after = page.next ?? undefined;
        pages += 1;
      } while (after);
      const mine = listed.filter((id) => id.startsWith(`dev-${fleet}-`));
      assert.equal(mine, ids, 'every device once, in id order');
      assert.ok(commands.length <= pages * 2, `${commands.length} commands for ${pages} pages of ${fleet} devices`);
    }
    const first = await store.devices({ limit: 1 });
    assert.is(first.total, 252);
    assert.equal(first.devices[0], {
      deviceId: 'dev-12-0000',
      session: 's1',
      connected: false,
      lastReading: {
        seq: 2,
        timestamp: doc(2).timestamp.toISOString(),
        value: 'v2',
        receivedAt: doc(2).receivedAt.toISOString(),
      },
      readingsStored: 2,
      backlog: null,
      lastSeenAt: null,
      readingsLost: 0,
    });
    // A resend counts nothing. A reading received later is the latest, stamped earlier or not (a clock gone back);
    // a batch whose summary is written late (received earlier, by a slow replica, say) never steps it back.
    await store.insert([
      doc(1, { deviceId: 'dev-12-0000' }),
      doc(9, { deviceId: 'dev-12-0000', timestamp: new Date(T0 - 86_400_000) }),
    ]);
    const again = (await store.devices({ limit: 1 })).devices[0]!;
    assert.is(again.readingsStored, 3);
    assert.is(again.lastReading!.seq, 9);
    await store.insert([doc(3, { deviceId: 'dev-12-0000', receivedAt: new Date(T0) })]);
    const late = (await store.devices({ limit: 1 })).devices[0]!;
    assert.equal([late.readingsStored, late.lastReading!.seq], [4, 9]);
    assert.equal(warnings, [], 'no MaxListenersExceededWarning');
  } finally {
    process.off('warning', onWarning);
  }
});

test('devices: presence from the replica holding the socket, stale after the bound; attention first', async () => {
  const { store } = setup();
  await store.insert([doc(1, { deviceId: 'quiet', timestamp: new Date(T0 - 60_000) }), doc(1, { deviceId: 'busy' })]);
  const now = new Date();
  const state = { session: 's1', connected: true, replica: 'r1', connection: 'c1', backlog: null, at: now };
  await store.presence([
    { ...state, deviceId: 'busy', backlog: 500 },
    { ...state, deviceId: 'gone', connection: 'c2', at: new Date(now.getTime() - 60_000), backlog: 9000 },
    { ...state, deviceId: 'fresh', connection: 'c3', backlog: 0 },
    { ...state, deviceId: 'behind', connection: 'c4', backlog: 50 },
  ]);
  const { devices, total } = await store.devices({ limit: 10 });
  const byId = new Map(devices.map((d) => [d.deviceId, d]));
  assert.is(total, 5);
  assert.is(byId.get('busy')!.connected, true);
  assert.is(byId.get('busy')!.lastSeenAt, now.toISOString());
  assert.is(byId.get('gone')!.connected, false, 'its replica stopped beating: shown disconnected');
  assert.is(byId.get('fresh')!.lastReading, null);
  const attention = await store.devices({ attention: 4 });
  // Connected with a backlog first, the largest first; then the longest silent: never read (the longest unheard
  // first), oldest reading. A stale device's backlog (gone's 9000) does not put it first.
  assert.equal(
    attention.devices.map((d) => d.deviceId),
    ['busy', 'behind', 'gone', 'fresh'],
  );
  // A close names its socket: closing an older socket leaves the newer one connected.
  const busy = async () => (await store.devices({ limit: 10 })).devices.find((d) => d.deviceId === 'busy')!;
  await store.presence([{ ...state, deviceId: 'busy', connection: 'older', connected: false, backlog: 1 }]);
  assert.equal([(await busy()).connected, (await busy()).backlog], [true, 500], 'an older socket changes nothing');
  await store.presence([{ ...state, deviceId: 'busy', connected: false, backlog: 480 }]);
  assert.equal([(await busy()).connected, (await busy()).backlog], [false, 480], 'closed: its last backlog stays');
});

test('backfill: devices whose readings predate the summaries are summarised once', async () => {
  const { store, db } = setup();
  await store.ensureIndexes();
  await db.collection(READINGS_COLLECTION).insertMany([doc(1, { deviceId: 'old' }), doc(2, { deviceId: 'old' })]);
  assert.equal((await store.devices({ limit: 10 })).devices, []);
  assert.is(await store.backfill(), 1);
  assert.is(await store.backfill(), 0);
  const [old] = (await store.devices({ limit: 10 })).devices;
  assert.equal([old!.deviceId, old!.readingsStored, old!.lastReading?.seq], ['old', 2, 2]);
});

test('while the monitor says disconnected every call fails at once with one line', async () => {
  const { store, commands } = setup({ connected: () => false });
  for (const call of [
    () => store.insert([doc(1)]),
    () => store.readings({ deviceId: 'dev-1', limit: 1 }),
    () => store.settled('dev-1', 's1', 1),
    () => store.refusedThrough('dev-1', 's1', 1),
    () => store.devices({ limit: 1 }),
    () => store.ensureIndexes(),
  ]) {
    const error = await rejection(call());
    assert.instance(error, DatabaseUnavailableError);
    assert.is(error.message, 'the database is not connected');
  }
  assert.equal(commands, [], 'nothing was sent');
});

test('a hung database: queries give up after their bound, an insert fails; both work again after', async () => {
  if (!target.standin) return; // only the stand-in can be hung in-process
  const { store } = setup({ queryTimeoutMs: 300, socketTimeoutMS: 500 });
  await store.insert([doc(1)]);
  target.standin.hang();
  for (const call of [() => store.readings({ deviceId: 'dev-1', limit: 1 }), () => store.devices({ limit: 1 })]) {
    const error = await withDeadline(rejection(call()), 5000, 'a query to a hung database');
    assert.instance(error, DatabaseUnavailableError);
    assert.is(error.message, 'the database did not answer within 300 ms');
  }
  const failed = await withDeadline(rejection(store.insert([doc(2)])), 5000, 'an insert to a hung database');
  assert.instance(failed, DatabaseUnavailableError);
  assert.not.match(failed.message, /\n/);
  target.standin.resume();
  // Whether the hung insert reached the server or not, the retry stores doc 2 exactly once.
  const retried = await store.insert([doc(2), doc(3)]);
  assert.is(retried.inserted + retried.duplicates.length, 2);
  assert.equal(
    (await store.readings({ deviceId: 'dev-1', limit: 10 })).map((r) => r.seq),
    [3, 2, 1],
  );
});

test('a write the database never acknowledges fails at its deadline, with no socket timeout to end it', async () => {
  if (!target.standin) return;
  // As the backend's client: no socketTimeoutMS, so nothing but the store's own deadline ends the write.
  const { store } = setup({ writeDeadlineMs: 400 });
  await store.insert([doc(1)]);
  target.standin.hang();
  const failed = await withDeadline(rejection(store.insert([doc(2)])), 5000, 'an insert to a hung database');
  assert.instance(failed, DatabaseUnavailableError);
  assert.is(failed.message, 'the database did not acknowledge the write within 400 ms');
  target.standin.resume();
  const retried = await store.insert([doc(2)]);
  assert.is(retried.inserted + retried.duplicates.length, 1);
});

test('a write answered while this process was paused past the deadline counts as answered, not abandoned', async () => {
  if (!target.standin) return; // against a real server, the stand-in tests only
  // The database must answer while this process is blocked: a stand-in of its own, in another process.
  const mongo = await startMongoProcess(await freePort());
  const client = new MongoClient(mongo.uri, { connectTimeoutMS: 2000, monitorCommands: true });
  try {
    const uri = mongo.uri;
    const store = createReadingStore({
      client,
      databaseName: 'app',
      isConnected: () => true,
      uri,
      // Long enough for an ordinary round trip (and the summary's write after the insert) on a loaded machine,
      // and well inside the pause below, so the deadline surely passes while the process is paused.
      writeDeadlineMs: 1000,
    });
    await store.insert([doc(1)]);
    // Once the insert is on the wire, a pause past the deadline (SIGSTOP, a long GC); the answer arrives meanwhile.
    client.once('commandStarted', () =>
      setImmediate(() => {
        const until = performance.now() + 3000;
        while (performance.now() < until);
      }),
    );
    const result = await withDeadline(store.insert([doc(2)]), 5000, 'the insert');
    assert.is(result.inserted, 1);
  } finally {
    await client.close();
    await mongo.stop();
  }
});

test.run();
