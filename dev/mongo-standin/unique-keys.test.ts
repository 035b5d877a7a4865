// A unique index's keys: which values are one key (as in mongod's indexes) and which are not, across BSON types.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Double, Int32, Long, ObjectId, type Document } from 'bson';
import { createUniqueKeys } from './unique-keys.ts';
import { compareValues } from './values.ts';
import { seededRandom } from '../../test/support/seeded-random.ts';

/** Stores `doc` under its key; returns the document that already held that key, if one did. */
function add(keys: ReturnType<typeof createUniqueKeys>, doc: Document): Document | undefined {
  const { map, part } = keys.slotOf(doc);
  const held = map.get(part) as Document | undefined;
  if (!held) map.set(part, doc);
  return held;
}

test('numbers are one key by value whatever their BSON type; a string of digits is another', () => {
  const keys = createUniqueKeys(['k']);
  const first = { k: 1 };
  assert.is(add(keys, first), undefined);
  for (const same of [new Int32(1), new Double(1), Long.fromNumber(1), 1.0]) assert.is(add(keys, { k: same }), first);
  assert.is(add(keys, { k: '1' }), undefined);
  assert.is(add(keys, { k: -0 }), undefined);
  assert.is(add(keys, { k: 0 }), keys.find([-0]));
  assert.is(add(keys, { k: NaN }), undefined);
  assert.ok(add(keys, { k: new Double(NaN) }), 'NaN is one key, as in mongod');
});

test('a missing field is the key null; an ObjectId is not its hex string; a Date is not its time', () => {
  const keys = createUniqueKeys(['k']);
  const missing = { other: 1 };
  assert.is(add(keys, missing), undefined);
  assert.is(add(keys, { k: null }), missing);
  const id = new ObjectId();
  assert.is(add(keys, { k: id }), undefined);
  assert.is(add(keys, { k: id.toHexString() }), undefined);
  assert.ok(add(keys, { k: new ObjectId(id.toHexString()) }));
  const dated = { k: new Date(5000) };
  assert.is(add(keys, dated), undefined);
  assert.is(add(keys, { k: 5000 }), undefined);
  assert.is(add(keys, { k: '10:5000' }), undefined);
  assert.ok(add(keys, { k: new Date(5000) }));
  assert.is(keys.find([new Date(5000)]), dated);
  assert.is(keys.find([undefined]), missing);
});

test('ObjectIds are one key only when all twelve bytes are the same', () => {
  const keys = createUniqueKeys(['_id']);
  const hex = '0123456789abcdef01234567';
  const first = { _id: new ObjectId(hex) };
  assert.is(add(keys, first), undefined);
  for (let at = 0; at < 24; at++) {
    const other = hex.slice(0, at) + (hex[at] === 'f' ? '0' : 'f') + hex.slice(at + 1);
    assert.is(add(keys, { _id: new ObjectId(other) }), undefined, `differs at hex digit ${at}`);
  }
  assert.is(keys.find([new ObjectId(hex)]), first);
  assert.is(keys.find([new ObjectId('ffffffffffffffffffffffff')]), undefined);
});

test('a compound key over dotted paths: found by its values in order, and only by all of them', () => {
  const keys = createUniqueKeys(['d', 's.t', 'n']);
  const doc = { d: 'x', s: { t: 'y' }, n: 3 };
  assert.is(add(keys, doc), undefined);
  assert.is(keys.find(['x', 'y', new Int32(3)]), doc);
  assert.is(keys.find(['x', 'y', 4]), undefined);
  assert.is(keys.find(['y', 'x', 3]), undefined);
  assert.is(keys.find(['x', 'z', 3]), undefined);
  assert.is(add(keys, { d: 'x', s: { t: 'y' }, n: 3, more: true }), doc);
});

// Random keys of mixed types against mongod's own equality (compareValues, which also orders sorts): two documents
// are one key exactly when every field compares equal.
const VALUES = [null, 0, 1, 2.5, new Int32(2), new Double(2.5), 'a', '1', 'null', new Date(1), true, false, { e: 1 }];
test('one key exactly when every field compares equal, for 300 random pairs of compound keys', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const { int, pick } = seededRandom(seed);
    const make = (): Document => ({ a: pick(VALUES), ...(int(4) > 0 ? { b: pick(VALUES) } : {}) });
    const [one, two] = [make(), make()];
    const keys = createUniqueKeys(['a', 'b']);
    add(keys, one);
    const equal = ['a', 'b'].every((field) => compareValues(one[field] ?? null, two[field] ?? null) === 0);
    assert.is(add(keys, two) === one, equal, `seed ${seed}: ${JSON.stringify([one, two])}`);
  }
});

test.run();
