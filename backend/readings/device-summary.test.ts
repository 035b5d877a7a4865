// The summary updates of a stored batch: counts per device, and the newest new reading (by receipt, then seq).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { storedUpdates } from './device-summary.ts';
import type { ReadingDocument } from './reading-document.ts';

const doc = (deviceId: string, seq: number, receivedMs: number): ReadingDocument => ({
  deviceId,
  session: 's',
  seq,
  timestamp: new Date(0),
  value: `v${seq}`,
  receivedAt: new Date(receivedMs),
});

type Update = { updateOne: { filter: { _id: string }; update: { $set?: { lastReading?: { seq: number } } } } };

/** The latest reading each update makes, by device: `deviceId seq`. */
const latest = (docs: ReadingDocument[], duplicates: number[] = []) =>
  (storedUpdates(docs, duplicates, 't') as Update[]).flatMap(({ updateOne: { filter, update } }) =>
    update.$set?.lastReading ? [`${filter._id} ${update.$set.lastReading.seq}`] : [],
  );

test('the newest is the one received last, then the highest seq, whatever the order in the batch', () => {
  assert.equal(latest([doc('a', 7, 2000), doc('a', 9, 1000), doc('a', 8, 2000), doc('b', 1, 5)]), ['a 8', 'b 1']);
});

test('a resend is neither counted nor the latest', () => {
  const ops = storedUpdates([doc('a', 1, 1000), doc('a', 2, 3000)], [1], 't');
  assert.equal(latest([doc('a', 1, 1000), doc('a', 2, 3000)], [1]), ['a 1']);
  assert.equal((ops[1] as { updateOne: { update: { $inc: object } } }).updateOne.update.$inc, { readingsStored: 1 });
});

test('the key written keeps receipt time first, seq zero-padded, so a string comparison orders them', () => {
  const [, , set] = storedUpdates([doc('a', 42, Date.UTC(2026, 0, 2))], [], 't');
  const { filter, update } = (set as { updateOne: { filter: object; update: { $set: object } } }).updateOne;
  const key = '2026-01-02T00:00:00.000Z|0000000000000042';
  assert.equal(filter, { _id: 'a', latestKey: { $lt: key } });
  assert.is((update.$set as { latestKey: string }).latestKey, key);
});

test('the count is marked with the batch token and skipped where that token is already marked', () => {
  const [made, count] = storedUpdates([doc('a', 1, 1000)], [], 'batch-1') as Array<{
    updateOne: { filter: object; update: object; upsert?: boolean };
  }>;
  assert.is(made!.updateOne.upsert, true);
  assert.equal(count!.updateOne.filter, { _id: 'a', countedBatch: { $ne: 'batch-1' } });
  assert.equal(count!.updateOne.update, { $inc: { readingsStored: 1 }, $set: { countedBatch: 'batch-1' } });
  assert.is(count!.updateOne.upsert, undefined);
});

test.run();
