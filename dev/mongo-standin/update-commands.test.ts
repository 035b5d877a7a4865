// update and findAndModify through the official driver, and the query operators they are used with ($in, $nin,
// $ne, $exists, $or, $and): the commands the driver sends and what comes back. Against the stand-in by default;
// with MONGO_TEST_URI set the very same tests run against mongod, so the stand-in's answers are held to mongod's.
import * as assert from 'uvu/assert';
import { MongoBulkWriteError, MongoServerError, ObjectId, type Document } from 'mongodb';
import { commandShape, mongoSuite } from '../../test/support/mongo-target.ts';
import { rejection } from '../../test/support/deadline.ts';

const { test, fresh, standin } = mongoSuite('MongoDB update, findAndModify and query operators');

/**
 * The documents without their _id, in `sort` order (not _id order: an _id the server makes for an upsert does not
 * sort after the driver's, in mongod either).
 */
async function contents(collection: ReturnType<typeof fresh>['collection'], sort: Document, filter: Document = {}) {
  const docs = await collection.find(filter, { sort }).toArray();
  return docs.map(({ _id, ...rest }) => rest);
}

test('updateOne upserts a device summary, then updates it with $set, $inc, $max, $min and $unset', async () => {
  const { collection, commands } = fresh('devices');
  const change = (seq: number, at: number) => ({
    $setOnInsert: { firstSeenAt: new Date(at) },
    $set: { connected: true, 'last.seq': seq },
    $inc: { readingsStored: 2 },
    $max: { lastSeenAt: new Date(at) },
    $min: { lowestSeq: seq },
  });
  const first = await collection.updateOne({ deviceId: 'd1' }, change(5, 1000), { upsert: true });
  assert.is(first.matchedCount, 0);
  assert.is(first.modifiedCount, 0);
  assert.is(first.upsertedCount, 1);
  assert.instance(first.upsertedId, ObjectId);
  const [sent] = commands.filter((c) => c.commandName === 'update');
  const shape = commandShape(sent!);
  assert.equal(Object.keys(shape).sort(), ['ordered', 'update', 'updates']);
  assert.equal(Object.keys((shape.updates as Document[])[0]!).sort(), ['q', 'u', 'upsert']);

  const second = await collection.updateOne({ deviceId: 'd1' }, change(3, 500), { upsert: true });
  assert.equal([second.matchedCount, second.modifiedCount, second.upsertedCount], [1, 1, 0]);
  assert.is(second.upsertedId, null);
  const [doc] = await collection.find({ deviceId: 'd1' }).toArray();
  assert.equal(Object.keys(doc!)[0], '_id', 'mongod stores _id first');
  assert.equal(doc!._id, first.upsertedId);
  const { _id, ...fields } = doc!;
  assert.equal(fields, {
    deviceId: 'd1',
    firstSeenAt: new Date(1000),
    connected: true,
    last: { seq: 3 },
    readingsStored: 4,
    lastSeenAt: new Date(1000),
    lowestSeq: 3,
  });

  const unset = await collection.updateOne({ deviceId: 'd1' }, { $unset: { last: '', nothing: '' } });
  assert.equal([unset.matchedCount, unset.modifiedCount], [1, 1]);
  assert.equal(await contents(collection, { deviceId: 1 }), [
    {
      deviceId: 'd1',
      firstSeenAt: new Date(1000),
      connected: true,
      readingsStored: 4,
      lastSeenAt: new Date(1000),
      lowestSeq: 3,
    },
  ]);
  const same = await collection.updateOne({ deviceId: 'd1' }, { $set: { connected: true } });
  assert.equal([same.matchedCount, same.modifiedCount], [1, 0], 'setting a field to what it holds modifies nothing');
  const none = await collection.updateOne({ deviceId: 'nobody' }, { $set: { connected: true } });
  assert.equal([none.matchedCount, none.modifiedCount, none.upsertedCount], [0, 0, 0]);
});

test('bulkWrite: several statements in one update command; n, nModified, upserted as mongod counts', async () => {
  const { collection, commands } = fresh();
  await collection.insertMany([
    { g: 'a', v: 1 },
    { g: 'a', v: 2 },
    { g: 'b', v: 3 },
  ]);
  const result = await collection.bulkWrite([
    { updateMany: { filter: { g: 'a' }, update: { $inc: { v: 10 } } } },
    { updateOne: { filter: { g: 'b' }, update: { $set: { v: 3 } } } },
    { updateOne: { filter: { g: 'c' }, update: { $set: { v: 4 } }, upsert: true } },
    { updateMany: { filter: { g: 'd' }, update: { $set: { v: 5 } }, upsert: true } },
  ]);
  assert.is(result.matchedCount, 3);
  assert.is(result.modifiedCount, 2);
  assert.is(result.upsertedCount, 2);
  assert.equal(Object.keys(result.upsertedIds), ['2', '3']);
  assert.is(commands.filter((c) => c.commandName === 'update').length, 1);
  assert.equal(await contents(collection, { g: 1, v: 1 }), [
    { g: 'a', v: 11 },
    { g: 'a', v: 12 },
    { g: 'b', v: 3 },
    { g: 'c', v: 4 },
    { g: 'd', v: 5 },
  ]);
});

test('an update repeating a unique key: 11000 for that statement; ordered stops, unordered goes on', async () => {
  const { collection } = fresh();
  await collection.createIndex({ k: 1 }, { unique: true });
  await collection.insertMany([{ k: 1 }, { k: 2 }]);
  const single = (await rejection(collection.updateOne({ k: 2 }, { $set: { k: 1 } }))) as MongoServerError;
  assert.instance(single, MongoServerError);
  assert.is(single.code, 11000);
  assert.match(single.message, /^E11000 duplicate key error collection: \S+\.things index: k_1 dup key: \{ k: 1 \}$/);
  const unordered = (await rejection(
    collection.bulkWrite(
      [
        { updateOne: { filter: { k: 2 }, update: { $set: { k: 1 } } } },
        { updateOne: { filter: { k: 2 }, update: { $set: { k: 3 } } } },
      ],
      { ordered: false },
    ),
  )) as MongoBulkWriteError;
  assert.instance(unordered, MongoBulkWriteError);
  assert.equal(
    [unordered.writeErrors].flat().map((e) => [e.index, e.code]),
    [[0, 11000]],
  );
  assert.is(unordered.result.modifiedCount, 1);
  assert.equal(
    await contents(collection, { k: 1 }),
    [{ k: 1 }, { k: 3 }],
    'the refused update left k: 2 alone until the next',
  );
  await collection.insertOne({ k: 2 });
  assert.equal((await contents(collection, { k: 1 }, { k: 2 })).length, 1, 'the old key was given up by the update');
});

test('updates mongod refuses: $inc of a string, a changed _id, two operators on one path', async () => {
  const { collection } = fresh();
  await collection.insertOne({ _id: 7 as never, s: 'text', n: 1 });
  const cases: Array<[Document, number]> = [
    [{ $inc: { s: 1 } }, 14],
    [{ $inc: { n: 'x' } }, 14],
    [{ $set: { _id: 8 } }, 66],
    [{ $set: { n: 2 }, $inc: { n: 1 } }, 40],
  ];
  for (const [update, code] of cases) {
    const error = (await rejection(collection.updateOne({ _id: 7 as never }, update))) as MongoServerError;
    assert.instance(error, MongoServerError);
    assert.is(error.code, code, JSON.stringify(update));
  }
  assert.equal(await contents(collection, { _id: 1 }), [{ s: 'text', n: 1 }], 'nothing changed');
});

test('replaceOne keeps the _id; upserting with an _id in the filter keeps that _id', async () => {
  const { collection } = fresh();
  await collection.insertOne({ _id: 'a' as never, x: 1, y: 2 });
  const replaced = await collection.replaceOne({ _id: 'a' as never }, { z: 3 });
  assert.equal([replaced.matchedCount, replaced.modifiedCount], [1, 1]);
  const upserted = await collection.updateOne({ _id: 'b' as never }, { $set: { x: 1 } }, { upsert: true });
  assert.is(upserted.upsertedId as unknown, 'b');
  assert.equal(await collection.find({}, { sort: { _id: 1 } }).toArray(), [
    { _id: 'a', z: 3 },
    { _id: 'b', x: 1 },
  ] as never);
});

test('findOneAndUpdate and findOneAndDelete: the document before or after, upserted, removed', async () => {
  const { collection } = fresh();
  await collection.insertMany([
    { k: 'a', n: 1 },
    { k: 'b', n: 2 },
    { k: 'b', n: 3 },
  ]);
  const before = await collection.findOneAndUpdate({ k: 'b' }, { $inc: { n: 10 } }, { sort: { n: -1 } });
  assert.equal(before && { k: before.k, n: before.n }, { k: 'b', n: 3 });
  const after = await collection.findOneAndUpdate({ k: 'a' }, { $inc: { n: 10 } }, { returnDocument: 'after' });
  assert.equal(after && { k: after.k, n: after.n }, { k: 'a', n: 11 });
  const meta = await collection.findOneAndUpdate(
    { k: 'c' },
    { $set: { n: 0 } },
    { upsert: true, returnDocument: 'after', includeResultMetadata: true },
  );
  assert.is(meta.ok, 1);
  assert.is(meta.lastErrorObject?.n, 1);
  assert.is(meta.lastErrorObject?.updatedExisting, false);
  assert.instance(meta.lastErrorObject?.upserted, ObjectId);
  assert.equal(meta.value && { k: meta.value.k, n: meta.value.n }, { k: 'c', n: 0 });
  assert.is(await collection.findOneAndUpdate({ k: 'z' }, { $set: { n: 1 } }), null);
  const removed = await collection.findOneAndDelete({ k: 'b' }, { sort: { n: 1 } });
  assert.equal(removed && removed.n, 2);
  assert.equal(await contents(collection, { k: 1 }), [
    { k: 'a', n: 11 },
    { k: 'b', n: 13 },
    { k: 'c', n: 0 },
  ]);
  assert.is(await collection.findOneAndDelete({ k: 'z' }), null);
});

test('query operators: $in, $nin, $ne, $exists, $or, $and (a missing field equals null)', async () => {
  const { collection } = fresh();
  await collection.insertMany([{ v: 1 }, { v: 2 }, { v: 'x' }, { w: 1 }, { v: null }, { v: 3, w: 2 }]);
  const values = async (filter: Document) =>
    (await collection.find(filter, { sort: { _id: 1 } }).toArray()).map((d) => [d.v ?? null, d.w ?? null]);
  assert.equal(await values({ v: { $in: [1, 'x'] } }), [
    [1, null],
    ['x', null],
  ]);
  assert.equal(await values({ v: { $in: [null] } }), [
    [null, 1],
    [null, null],
  ]);
  assert.equal(await values({ v: { $nin: [1, 2, null] } }), [
    ['x', null],
    [3, 2],
  ]);
  assert.equal(await values({ v: { $ne: 1 } }), [
    [2, null],
    ['x', null],
    [null, 1],
    [null, null],
    [3, 2],
  ]);
  assert.equal(await values({ v: { $ne: null } }), [
    [1, null],
    [2, null],
    ['x', null],
    [3, 2],
  ]);
  assert.equal(await values({ w: { $exists: true } }), [
    [null, 1],
    [3, 2],
  ]);
  assert.equal(await values({ v: { $exists: false } }), [[null, 1]]);
  assert.equal(await values({ $or: [{ v: 2 }, { w: 2 }] }), [
    [2, null],
    [3, 2],
  ]);
  assert.equal(await values({ $and: [{ v: { $gte: 2 } }, { v: { $lt: 3 } }] }), [[2, null]]);
  assert.equal(await values({ $or: [{ v: { $exists: false } }, { v: { $gt: 2 } }], w: { $ne: 1 } }), [[3, 2]]);
  assert.is(((await rejection(collection.find({ v: { $in: 1 } }).toArray())) as MongoServerError).code, 2);
  assert.is(((await rejection(collection.find({ $or: [] }).toArray())) as MongoServerError).code, 2);
});

test('the stand-in refuses by name the update forms it does not do', async () => {
  if (!standin()) return; // mongod does all of it
  const { collection } = fresh();
  await collection.insertOne({ a: [1], n: 1 });
  for (const [run, pattern] of [
    [
      () => collection.updateOne({}, { $push: { a: 2 } } as Document),
      /^\$push is not supported by the MongoDB stand-in/,
    ],
    [() => collection.updateOne({}, [{ $set: { n: 2 } }]), /^an update pipeline is not supported/],
    [() => collection.updateOne({}, { $set: { 'a.0': 2 } }), /^updating inside an array \(a\.0\) is not supported/],
    [() => collection.find({ $nor: [{ n: 1 }] }).toArray(), /^\$nor is not supported by the MongoDB stand-in/],
  ] as Array<[() => Promise<unknown>, RegExp]>) {
    const error = (await rejection(run())) as MongoServerError;
    assert.instance(error, MongoServerError);
    assert.is(error.code, 2, error.message);
    assert.match(error.message, pattern);
  }
});

test.run();
