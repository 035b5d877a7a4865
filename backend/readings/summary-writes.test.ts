// The summary writes kept for replay, against a collection that records its bulk writes and answers when told to.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AnyBulkWriteOperation, Collection } from 'mongodb';
import { createStoreGuard } from '../database/store-guard.ts';
import type { DeviceSummaryDocument } from './device-summary.ts';
import { createSummaryWrites } from './summary-writes.ts';

type Ops = AnyBulkWriteOperation<DeviceSummaryDocument>[];

/** A collection whose bulkWrite calls wait for `answer`: each call's ops, and a way to settle the oldest. */
function heldCollection() {
  const calls: { ops: Ops; settle: (error?: Error) => void }[] = [];
  const devices = {
    bulkWrite: (ops: Ops) =>
      new Promise((resolve, reject) => {
        calls.push({ ops, settle: (error) => (error ? reject(error) : resolve({})) });
      }),
  } as unknown as Collection<DeviceSummaryDocument>;
  return { devices, calls };
}

const guard = createStoreGuard({
  isConnected: () => true,
  uri: 'mongodb://db',
  queryTimeoutMs: 60_000,
  writeDeadlineMs: 60_000,
});
const summary = (id: string): Ops => [{ updateOne: { filter: { _id: id }, update: { $set: { backlog: 0 } } } }];
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Summary writes holding one pending write: `id`'s, whose first send failed with `message`. */
async function pendingAfterFailure(id: string, message: string) {
  const { devices, calls } = heldCollection();
  const writes = createSummaryWrites(devices, guard, { w: 'majority' });
  const failed = writes.write(summary(id)).catch((error: unknown) => error);
  await turn();
  calls[0]!.settle(new Error(message));
  assert.instance(await failed, Error);
  return { writes, calls };
}

test('a failed write is sent once however many writers replay it at the same time, then no more', async () => {
  const { writes, calls } = await pendingAfterFailure('dev-1', 'connection reset');
  const replays = [writes.replay(), writes.replay(), writes.replay()];
  await turn();
  assert.is(calls.length, 2, 'three replays of one pending write: one send');
  calls[1]!.settle();
  await Promise.all(replays);
  await writes.replay();
  assert.is(calls.length, 2, 'a write that succeeded is not sent again');
});

test('a replay that fails leaves the write pending for the next one', async () => {
  const { writes, calls } = await pendingAfterFailure('dev-2', 'not primary');
  const replay = writes.replay().catch((error: unknown) => error);
  await turn();
  calls[1]!.settle(new Error('not primary'));
  assert.instance(await replay, Error);
  const again = writes.replay();
  await turn();
  assert.equal(calls[2]?.ops, summary('dev-2'));
  calls[2]!.settle();
  await again;
});

test.run();
