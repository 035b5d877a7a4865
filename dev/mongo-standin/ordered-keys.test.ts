// An index read in key order answers every find, count, update and delete exactly as a scan of the whole collection
// does: the same documents in the same order, ties and natural order included, after inserts, replaces and removes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Int32, type Document } from 'bson';
import { createCrudCommands } from './crud-commands.ts';
import { createMemory } from './memory.ts';
import { compileFilter } from './query.ts';
import { seededRandom } from '../../test/support/seeded-random.ts';

// Few values, so that ties are common; several types (sorted by type first); null and a missing field.
const VALUES = [undefined, null, 0, 1, 2, 2.5, -3, 'a', 'b', new Date(0)];
const LEADING = ['d1', 'd2', 1, null];

function randomFilter(int: (n: number) => number, pick: <T>(items: readonly T[]) => T): Document {
  const filter: Document = { a: pick(LEADING) };
  const value = pick(VALUES.filter((v) => v !== undefined));
  const shape = int(6);
  if (shape === 1) filter.b = value;
  if (shape === 2) filter.b = { $gte: value };
  if (shape === 3) filter.b = { $lt: value, $gt: pick([-10, 0, 'a']) };
  if (shape === 4) filter.b = { $lte: value, $ne: 1 };
  if (shape === 5) filter.$and = [{ b: { $gt: value } }];
  return filter;
}

function mutate(db: ReturnType<typeof createCrudCommands>, seed: number, steps: number) {
  const { int, pick } = seededRandom(seed);
  const random = () => {
    const doc: Document = { a: pick(LEADING), n: int(1000) };
    if (int(6) > 0) doc.b = pick(VALUES);
    return doc;
  };
  for (let step = 0; step < steps; step++) {
    const kind = int(10);
    if (kind < 6) db.answer('insert', { insert: 'c', documents: [{ _id: step, ...random() }] });
    else if (kind < 8) {
      const u = { $set: { b: pick(VALUES) ?? null } };
      db.answer('update', { update: 'c', updates: [{ q: { a: pick(LEADING) }, u, multi: int(2) === 0 }] });
    } else db.answer('delete', { delete: 'c', deletes: [{ q: { a: pick(LEADING), b: pick(VALUES) ?? 1 }, limit: 1 }] });
  }
}

const SORTS: Array<Document | undefined> = [undefined, { b: 1 }, { b: -1 }, { a: 1, b: -1 }, { n: 1 }];

test('finds, counts, updates and deletes read through an index answer as a whole scan, 200 random histories', () => {
  for (let seed = 1; seed <= 200; seed++) {
    const indexed = createCrudCommands();
    const scanned = createCrudCommands();
    // Before any document for odd seeds, after some for even ones: an index built over stored documents too.
    if (seed % 2 === 1)
      indexed.answer('createIndexes', { createIndexes: 'c', indexes: [{ key: { a: 1, b: 1 }, name: 'i' }] });
    mutate(indexed, seed, 40);
    mutate(scanned, seed, 40);
    if (seed % 2 === 0)
      indexed.answer('createIndexes', { createIndexes: 'c', indexes: [{ key: { a: 1, b: 1 }, name: 'i' }] });
    mutate(indexed, seed + 1000, 40);
    mutate(scanned, seed + 1000, 40);
    const { int, pick } = seededRandom(seed + 2000);
    for (let query = 0; query < 20; query++) {
      const filter = randomFilter(int, pick);
      const find = { find: 'c', filter, sort: pick(SORTS), limit: pick([0, 1, 3]), skip: pick([0, 0, 2]) };
      const ids = (db: typeof indexed) => (db.answer('find', find)!.cursor.firstBatch as Document[]).map((d) => d._id);
      assert.equal(ids(indexed), ids(scanned), `seed ${seed}: ${JSON.stringify(find)}`);
      const counted = (db: typeof indexed) => db.answer('count', { count: 'c', query: filter })!.n;
      assert.is(counted(indexed), counted(scanned), `seed ${seed}: count ${JSON.stringify(filter)}`);
    }
  }
});

test('a find pinning the leading fields reads only the part its bounds leave, not the collection', () => {
  const memory = createMemory();
  memory.createIndexes('app', 'c', [{ key: { a: 1, b: 1 }, name: 'a_1_b_1', unique: false }]);
  const documents = Array.from({ length: 20_000 }, (_, i) => ({ _id: i, a: i % 2 === 0 ? 'x' : 'y', b: i }));
  memory.insert('app', 'c', documents, true);
  const filter = { a: 'x', b: { $gte: 100, $lte: 104 } };
  assert.equal(
    memory.candidates('app', 'c', filter).map((d) => d._id),
    [100, 102, 104],
  );
  const below = memory.inOrder('app', 'c', { a: 'y', b: { $lt: 15_000 } }, { b: -1 })!;
  assert.is(below[Symbol.iterator]().next().value!._id, 14_999);
  // Without the leading field pinned, no index helps: every document is a candidate.
  assert.is(memory.candidates('app', 'c', { b: { $gte: 100, $lte: 104 } }).length, 20_000);
});

test('an $in on _id looks each key up: the documents a scan finds, in natural order, after replaces', () => {
  for (let seed = 1; seed <= 100; seed++) {
    const { int, pick } = seededRandom(seed);
    const memory = createMemory();
    const documents = Array.from({ length: 50 }, (_, i) => ({ _id: pick([i, `s${i}`, i + 0.5]), n: i }));
    memory.insert('app', 'c', documents, false);
    for (let i = 0; i < 10; i++) {
      const current = pick(memory.collection('app', 'c')!.docs);
      memory.replace('app', 'c', current, { ...current, n: 100 + i });
    }
    const listed = Array.from({ length: int(8) }, () =>
      pick([int(60), `s${int(60)}`, int(60) + 0.5, new Int32(int(60))]),
    );
    const filter = { _id: { $in: listed } };
    const scan = memory.collection('app', 'c')!.docs.filter(compileFilter(filter));
    assert.equal(memory.candidates('app', 'c', filter), scan, `seed ${seed}: ${JSON.stringify(listed)}`);
  }
});

test('a leading value the index cannot key (an embedded document) leaves finds scanning, and right', () => {
  const db = createCrudCommands();
  db.answer('createIndexes', { createIndexes: 'c', indexes: [{ key: { a: 1, b: 1 }, name: 'i' }] });
  db.answer('insert', {
    insert: 'c',
    documents: [
      { _id: 1, a: { x: 1 }, b: 1 },
      { _id: 2, a: 'x', b: 2 },
    ],
  });
  const ids = (filter: Document) =>
    (db.answer('find', { find: 'c', filter, sort: { b: 1 } })!.cursor.firstBatch as Document[]).map((d) => d._id);
  assert.equal(ids({ a: 'x', b: { $gte: 0 } }), [2]);
  assert.equal(ids({ a: { x: 1 } }), [1]);
});

test.run();
