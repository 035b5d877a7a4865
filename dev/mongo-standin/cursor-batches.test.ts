// Large reads through the official driver: a cursor streams in batches that each stay under the message limit
// (101 documents first, then up to 16 MiB of documents per getMore), and a distinct too big for one reply is
// refused as mongod refuses it. With MONGO_TEST_URI set the same tests run against mongod.
import * as assert from 'uvu/assert';
import { BSON, MongoServerError, type CommandSucceededEvent, type Document } from 'mongodb';
import { mongoSuite } from '../../test/support/mongo-target.ts';
import { rejection } from '../../test/support/deadline.ts';

const suite = mongoSuite('MongoDB cursor batches');
const MIB = 1024 * 1024;

const test = suite.test;

/** A fresh collection, and the replies its client gets. */
function fresh() {
  const { db, collection, client } = suite.fresh();
  const replies: CommandSucceededEvent[] = [];
  client.on('commandSucceeded', (event) => replies.push(event));
  return { db, collection, replies };
}

test('find().toArray() of 45,000 documents of ~600 bytes: all of them, in batches of at most 16 MiB', async () => {
  const { db, collection, replies } = fresh();
  const total = 45_000;
  const padding = 'x'.repeat(560);
  await collection.insertMany(Array.from({ length: total }, (_, n) => ({ n, padding })));
  const size = BSON.calculateObjectSize({ _id: new BSON.ObjectId(), n: 44_999, padding });
  assert.ok(size >= 580 && size <= 620, `a document is ${size} bytes`);

  const docs = await collection.find({}, { sort: { n: 1 } }).toArray();
  assert.is(docs.length, total);
  assert.ok(
    docs.every((doc, i) => doc.n === i),
    'every document once, in order',
  );
  const [find] = replies.filter((r) => r.commandName === 'find');
  assert.is((find!.reply as Document).cursor.firstBatch.length, 101);
  const batches = replies
    .filter((r) => r.commandName === 'getMore')
    .map((r) => (r.reply as Document).cursor.nextBatch as Document[]);
  assert.ok(batches.length >= 2, `${batches.length} getMore replies: 27 MB cannot fit in one`);
  for (const batch of batches) {
    const bytes = batch.reduce((sum, doc) => sum + BSON.calculateObjectSize(doc), 0);
    assert.ok(bytes <= 16 * MIB, `a batch of ${batch.length} documents holds ${bytes} bytes`);
  }
  assert.is(batches.flat().length, total - 101);
  assert.is((await db.command({ count: 'things', query: {} })).n, total);
});

test('a getMore with batchSize still stops at 16 MiB; a single batch too', async () => {
  const { collection, replies } = fresh();
  const big = 'y'.repeat(MIB);
  await collection.insertMany(Array.from({ length: 40 }, (_, n) => ({ n, big })));
  const docs = await collection.find({}, { sort: { n: 1 }, batchSize: 30 }).toArray();
  assert.equal(
    docs.map((doc) => doc.n),
    Array.from({ length: 40 }, (_, n) => n),
  );
  const lengths = replies
    .filter((r) => r.commandName === 'find' || r.commandName === 'getMore')
    .map((r) => {
      const cursor = (r.reply as Document).cursor;
      return (cursor.firstBatch ?? cursor.nextBatch).length as number;
    });
  assert.equal(lengths, [15, 15, 10], 'each batch ends before its 16th MiB of documents');
  const single = await collection.find({}, { sort: { n: 1 }, limit: -40 }).toArray();
  assert.is(single.length, 15, 'a single batch is the first batch, and no more');
});

test('a distinct whose values pass 16 MiB: code 17217, as mongod refuses it', async () => {
  const { db, collection } = fresh();
  await collection.insertMany(Array.from({ length: 20 }, (_, n) => ({ k: `${n}`.padEnd(MIB, '-') })));
  const error = (await rejection(db.command({ distinct: 'things', key: 'k', query: {} }))) as MongoServerError;
  assert.instance(error, MongoServerError);
  assert.is(error.code, 17217);
  assert.match(error.message, /distinct too big, 16mb cap/);
  const fits = await db.command({ distinct: 'things', key: 'k', query: { k: { $lt: '2' } } });
  assert.is(fits.values.length, 12, '0, 1 and 10 to 19');
});

test.run();
