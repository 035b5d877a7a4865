// The subset of MongoDB the backend uses, through the official driver: what the driver really sends for each
// operation (recorded with command monitoring) and what comes back. Against the stand-in by default; with
// MONGO_TEST_URI set (the container tests do, with the `mongo` image) the very same tests run against mongod, so
// the stand-in's answers are held to mongod's.
import * as assert from 'uvu/assert';
import {
  Long,
  MongoBulkWriteError,
  MongoServerError,
  type CommandStartedEvent,
  type Db,
  type Document,
  type IndexDescription,
} from 'mongodb';
import { commandShape, mongoSuite } from '../../test/support/mongo-target.ts';
import { rejection } from '../../test/support/deadline.ts';

const { test, fresh, standin } = mongoSuite('MongoDB subset');

/** Maps (the driver builds sort and index keys as Maps) as plain objects, so shapes compare with assert.equal. */
function plain(value: unknown): unknown {
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [k, plain(v)]));
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object' && value.constructor === Object) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

/** The `count` command (countDocuments would send an aggregate, which the backend does not use). */
const count = async (collection: { dbName: string; collectionName: string }, db: Db, query: Document = {}) =>
  (await db.command({ count: collection.collectionName, query })).n as number;

const named = (commands: CommandStartedEvent[], name: string) => commands.filter((c) => c.commandName === name);

test('insertMany unordered, as the backend writes: the command the driver sends, and n', async () => {
  const { collection, commands, db } = fresh();
  const docs = [{ k: 1 }, { k: 2 }];
  const result = await collection.insertMany(docs, {
    ordered: false,
    writeConcern: { w: 'majority', j: true, wtimeoutMS: 5000 },
  });
  assert.is(result.insertedCount, 2);
  const [insert] = named(commands, 'insert');
  const shape = commandShape(insert!);
  // The documents travel in an OP_MSG document sequence; the driver puts an ObjectId _id on each first.
  assert.equal(Object.keys(shape).sort(), ['documents', 'insert', 'ordered', 'writeConcern']);
  assert.equal(
    { ...shape, documents: undefined },
    {
      insert: 'things',
      ordered: false,
      writeConcern: { w: 'majority', j: true, wtimeout: 5000 },
      documents: undefined,
    },
  );
  assert.equal(
    (shape.documents as Document[]).map((doc) => Object.keys(doc)),
    [
      ['k', '_id'],
      ['k', '_id'],
    ],
  );
  assert.is(insert!.databaseName, db.databaseName);
});

test('a duplicate key: code 11000 worded as mongod words it; ordered stops there, unordered goes on', async () => {
  const { collection, db } = fresh();
  await collection.createIndex({ k: 1 }, { unique: true });
  await collection.insertOne({ k: 1 });
  const ordered = await rejection(collection.insertMany([{ k: 0 }, { k: 1 }, { k: 2 }], { ordered: true }));
  assert.instance(ordered, MongoBulkWriteError);
  const bulk = ordered as MongoBulkWriteError;
  assert.is(bulk.code, 11000);
  assert.is(bulk.insertedCount, 1);
  const [first] = [bulk.writeErrors].flat();
  assert.is(first!.index, 1);
  assert.is(first!.code, 11000);
  assert.is(
    first!.errmsg,
    `E11000 duplicate key error collection: ${db.databaseName}.things index: k_1 dup key: { k: 1 }`,
  );
  assert.is(await count(collection, db, { k: 2 }), 0, 'an ordered insert stops at the first error');

  const unordered = (await rejection(
    collection.insertMany([{ k: 1 }, { k: 3 }, { k: 2 }, { k: 3 }], { ordered: false }),
  )) as MongoBulkWriteError;
  assert.is(unordered.insertedCount, 2);
  assert.equal(
    [unordered.writeErrors].flat().map((e) => [e.index, e.code]),
    [
      [0, 11000],
      [3, 11000],
    ],
  );
  assert.is(await count(collection, db), 4, 'k: 1, 0, 3 and 2 once each');
});

test('a compound unique key is printed field by field, strings quoted', async () => {
  const { collection, db } = fresh('readings');
  await collection.createIndex({ deviceId: 1, session: 1, seq: 1 }, { unique: true });
  const doc = { deviceId: 'dev "1"', session: 's-1', seq: 3, value: 'x' };
  await collection.insertOne({ ...doc });
  const error = (await rejection(collection.insertOne({ ...doc }))) as MongoServerError;
  assert.is(error.code, 11000);
  assert.is(
    error.message,
    `E11000 duplicate key error collection: ${db.databaseName}.readings index: deviceId_1_session_1_seq_1 ` +
      'dup key: { deviceId: "dev \\"1\\"", session: "s-1", seq: 3 }',
  );
  assert.equal(error.keyValue, { deviceId: 'dev "1"', session: 's-1', seq: 3 });
});

test('find: equality, a range, a sort on two fields, a limit; getMore for what the first batch left', async () => {
  const { collection, commands } = fresh();
  const base = Date.UTC(2026, 0, 1);
  await collection.insertMany(
    Array.from({ length: 300 }, (_, i) => ({
      g: i % 2 === 0 ? 'even' : 'odd',
      n: i,
      at: new Date(base + Math.floor(i / 4) * 1000),
    })),
  );
  const docs = await collection
    .find({ g: 'even', at: { $lt: new Date(base + 70_000) } }, { sort: { at: -1, n: -1 }, limit: 120, maxTimeMS: 2000 })
    .toArray();
  const expected = Array.from({ length: 140 }, (_, i) => 2 * i)
    .reverse()
    .slice(0, 120);
  assert.equal(
    docs.map((d) => d.n),
    expected,
  );
  const [find] = named(commands, 'find');
  assert.equal(plain(commandShape(find!)), {
    find: 'things',
    filter: { g: 'even', at: { $lt: new Date(base + 70_000) } },
    sort: { at: -1, n: -1 },
    limit: 120,
    maxTimeMS: 2000,
  });
  // mongod's first batch is 101 documents; the driver asks for the rest with one getMore, and the server (which
  // remembers the limit) sends the other 19.
  const getMores = named(commands, 'getMore');
  assert.is(getMores.length, 1);
  const more = commandShape(getMores[0]!);
  assert.ok(Long.isLong(more.getMore), 'the cursor id is a 64-bit integer');
  assert.equal({ ...more, getMore: undefined }, { getMore: undefined, collection: 'things' });
});

test('find with batchSize: one getMore per batch until the cursor id is 0; close() kills a cursor early', async () => {
  const { collection, commands } = fresh();
  await collection.insertMany(Array.from({ length: 25 }, (_, n) => ({ n })));
  const all = await collection.find({}, { sort: { n: 1 }, batchSize: 10 }).toArray();
  assert.equal(
    all.map((d) => d.n),
    Array.from({ length: 25 }, (_, n) => n),
  );
  assert.equal(
    named(commands, 'getMore').map((c) => commandShape(c).batchSize),
    [10, 10],
  );
  const cursor = collection.find({}, { batchSize: 5 });
  await cursor.next();
  await cursor.close();
  const [kill] = named(commands, 'killCursors');
  const shape = commandShape(kill!);
  assert.is(shape.killCursors, 'things');
  assert.is((shape.cursors as Long[]).length, 1);
});

test('numbers, dates and strings compare by value and type; a missing field equals null', async () => {
  const { collection } = fresh();
  await collection.insertMany([{ v: 1 }, { v: 2.5 }, { v: 'a' }, { v: new Date(5) }, { w: 1 }, { v: null }]);
  const values = async (filter: Document) =>
    (await collection.find(filter, { sort: { _id: 1 } }).toArray()).map((d) => d.v ?? null);
  assert.equal(await values({ v: { $gte: 1 } }), [1, 2.5]);
  assert.equal(await values({ v: { $lt: 'b' } }), ['a']);
  assert.equal(await values({ v: { $gt: new Date(0) } }), [new Date(5)]);
  assert.equal(await values({ v: 1 }), [1]);
  assert.equal(await values({ v: null }), [null, null]);
  const sorted = await collection.find({}, { sort: { v: 1, _id: 1 } }).toArray();
  assert.equal(
    sorted.map((d) => d.v ?? null),
    [null, null, 1, 2.5, 'a', new Date(5)],
  );
});

test('createIndexes: what the driver sends, the reply, again (already there), a conflicting one', async () => {
  const { db, collection, commands } = fresh('readings');
  const indexes: IndexDescription[] = [
    { key: { deviceId: 1, session: 1, seq: 1 }, name: 'deviceId_1_session_1_seq_1', unique: true },
    { key: { deviceId: 1, timestamp: -1, seq: -1 }, name: 'deviceId_1_timestamp_-1_seq_-1' },
  ];
  const first = await db.command({ createIndexes: 'readings', indexes });
  assert.equal(
    { ...first, $clusterTime: undefined, operationTime: undefined },
    {
      numIndexesBefore: 1,
      numIndexesAfter: 3,
      createdCollectionAutomatically: true,
      ok: 1,
      $clusterTime: undefined,
      operationTime: undefined,
    },
  );
  assert.equal(
    await collection.createIndexes(indexes),
    indexes.map((i) => i.name),
  );
  assert.equal(plain(commandShape(named(commands, 'createIndexes')[1]!)), {
    createIndexes: 'readings',
    indexes: [
      { unique: true, name: 'deviceId_1_session_1_seq_1', key: { deviceId: 1, session: 1, seq: 1 } },
      { name: 'deviceId_1_timestamp_-1_seq_-1', key: { deviceId: 1, timestamp: -1, seq: -1 } },
    ],
  });
  const again = await db.command({ createIndexes: 'readings', indexes });
  assert.is(again.note, 'all indexes already exist');
  assert.is(again.numIndexesAfter, 3);
  assert.equal(
    (await collection.listIndexes().toArray()).map((i) => [i.name, i.unique ?? false]),
    [
      ['_id_', false],
      ['deviceId_1_session_1_seq_1', true],
      ['deviceId_1_timestamp_-1_seq_-1', false],
    ],
  );
  const clash = (await rejection(
    db.command({ createIndexes: 'readings', indexes: [{ key: { other: 1 }, name: 'deviceId_1_session_1_seq_1' }] }),
  )) as MongoServerError;
  assert.is(clash.code, 86);
  assert.is(clash.codeName, 'IndexKeySpecsConflict');
});

test('a unique index over data that repeats a key is not built: 11000', async () => {
  const { collection } = fresh();
  await collection.insertMany([{ k: 1 }, { k: 1 }]);
  const error = (await rejection(collection.createIndex({ k: 1 }, { unique: true }))) as MongoServerError;
  assert.is(error.code, 11000);
  assert.match(error.message, /E11000 duplicate key error collection: \S+\.things index: k_1 dup key: \{ k: 1 \}/);
});

test('count with a query and distinct, as the backend sends them', async () => {
  const { db, collection } = fresh('readings');
  await collection.insertMany([{ deviceId: 'b' }, { deviceId: 'a' }, { deviceId: 'b' }, { other: 1 }]);
  const count = await db.command({ count: 'readings', query: { deviceId: 'b' }, maxTimeMS: 2000 });
  assert.is(count.n, 2);
  assert.is(count.ok, 1);
  const distinct = await db.command({ distinct: 'readings', key: 'deviceId', query: {}, maxTimeMS: 2000 });
  assert.equal(distinct.values, ['a', 'b']);
  assert.is((await db.command({ count: 'nothing-here', query: {} })).n, 0);
});

test('drop and dropDatabase: gone, and dropping what is not there is fine', async () => {
  const { db, collection } = fresh();
  await collection.insertOne({ a: 1 });
  assert.ok(await collection.drop());
  assert.is(await count(collection, db), 0);
  assert.ok(await collection.drop(), 'a collection that is not there');
  await collection.insertOne({ a: 1 });
  await db.dropDatabase();
  assert.is(await count(collection, db), 0);
});

test('delete: the first match or every match, counted as mongod counts them', async () => {
  const { collection } = fresh();
  await collection.insertMany([{ a: 1 }, { a: 1 }, { a: 2 }, { a: 3 }]);
  assert.is((await collection.deleteOne({ a: 1 })).deletedCount, 1);
  assert.is((await collection.deleteMany({ a: { $in: [1, 2, 9] } })).deletedCount, 2);
  assert.is((await collection.deleteMany({ a: 9 })).deletedCount, 0);
  assert.equal(
    (await collection.find({}).toArray()).map(({ a }) => a),
    [3],
  );
});

test('a projection of field names keeps those (and _id unless excluded), or drops them', async () => {
  const { collection } = fresh();
  await collection.insertMany([
    { _id: 1 as never, deviceId: 'd', seq: 1, value: 'a' },
    { _id: 2 as never, deviceId: 'd', seq: 2, value: 'b' },
  ]);
  const sorted = { sort: { seq: 1 } } as const;
  assert.equal(await collection.find({ deviceId: 'd' }, { ...sorted, projection: { _id: 0, seq: 1 } }).toArray(), [
    { seq: 1 },
    { seq: 2 },
  ]);
  assert.equal(await collection.find({}, { ...sorted, projection: { value: 1 } }).toArray(), [
    { _id: 1, value: 'a' },
    { _id: 2, value: 'b' },
  ]);
  assert.equal(await collection.find({ seq: 2 }, { projection: { value: 0, deviceId: false } }).toArray(), [
    { _id: 2, seq: 2 },
  ]);
  const mixed = (await rejection(
    collection.find({}, { projection: { seq: 1, value: 0 } }).toArray(),
  )) as MongoServerError;
  assert.is(mixed.code, 31254);
});

test('the stand-in refuses by name what it does not do, in mongod’s error shape', async () => {
  if (!standin()) return; // mongod does all of it
  const { db, collection } = fresh();
  for (const [run, code, message] of [
    [() => collection.aggregate([{ $match: {} }]).toArray(), 59, /^aggregate is not supported by the MongoDB stand-in/],
    [() => db.command({ collMod: collection.collectionName }), 59, /^collMod is not supported by the MongoDB stand-in/],
    [() => collection.find({ a: { $regex: 'x' } }).toArray(), 2, /^\$regex is not supported by the MongoDB stand-in/],
    [
      () => collection.find({ a: { $not: { $gt: 1 } } }).toArray(),
      2,
      /^\$not is not supported by the MongoDB stand-in/,
    ],
    [() => collection.find({}, { hint: { a: 1 } }).toArray(), 2, /^find's hint is not supported/],
    [
      () => collection.find({}, { projection: { a: { $slice: 1 } } }).toArray(),
      2,
      /^a projection value for a is not supported by the MongoDB stand-in/,
    ],
    [() => db.command({ createIndexes: 'things', indexes: [{ key: { a: 1 }, name: 'a', sparse: true }] }), 2, /sparse/],
  ] as Array<[() => Promise<unknown>, number, RegExp]>) {
    const error = (await rejection(run())) as MongoServerError;
    assert.instance(error, MongoServerError);
    assert.is(error.code, code, error.message);
    assert.match(error.message, message);
  }
});

test.run();
