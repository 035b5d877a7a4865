// The `losses` collection: the sequence ranges each device declared lost (evicted from its spool, never written),
// merged where they overlap or touch, so that a session keeps few disjoint ranges, a declaration repeated on a new
// socket is counted once, and a range's count is what of it the backend never stored. What lies at or below the
// device's refusal mark is settled (stored or refused), and no part of a new range: a refused reading is not stored,
// and not lost either.
import type { AnyBulkWriteOperation, BulkWriteOptions, Collection, Db, IndexDescription } from 'mongodb';
import type { LossReason, SeqRange } from '../../lib/device-protocol.ts';
import { addRange, subtractRanges } from '../../lib/seq-ranges.ts';
import { createRangeCounter, mergeLosses } from './loss-merge.ts';
import { LOSS_RANGES_KEPT_MAX, LossRefusedError } from './loss-refusal.ts';
import { DEVICES_COLLECTION, lostUpdate, type DeviceSummaryDocument } from './device-summary.ts';
import { READINGS_COLLECTION, type ReadingDocument } from './reading-document.ts';

export const LOSSES_COLLECTION = 'losses';

export const LOSS_INDEXES: IndexDescription[] = [
  { key: { deviceId: 1, session: 1, from: 1 }, name: 'deviceId_1_session_1_from_1' },
];

export interface LossDocument {
  /** `<deviceId> <session> <from>`: a device id holds no space, so the key is one range's alone. */
  _id: string;
  deviceId: string;
  session: string;
  from: number;
  to: number;
  /** The reason of the declaration that last grew the range. */
  reason: LossReason;
  /** Readings of the range the backend had not stored when each part of it was declared. */
  lost: number;
  declaredAt: Date;
}

/** What the calls need: the database, and a request's bounds. */
interface LossParts {
  db: Db;
  bounds: { maxTimeMS: number; signal: AbortSignal };
  writeOptions: BulkWriteOptions;
  /** The most ranges a session keeps (LOSS_RANGES_KEPT_MAX unless a test says otherwise). */
  rangesKeptMax?: number;
}

/**
 * How many ranges a session keeps, in the `losses` collection beside them: `<deviceId> <session> ranges` (a range's
 * `_id` ends in a number, so none is taken), with no `deviceId`, `session` or `from`, so no range query finds it.
 */
interface RangeCountDocument {
  _id: string;
  ranges: number;
}

const countId = (deviceId: string, session: string) => `${deviceId} ${session} ranges`;

// Readings a find hands back at a time while counting those stored inside fresh parts: a 1,000-range message's
// readings come in one reply, and a span holding millions is counted a batch at a time, never held whole.
const COUNT_BATCH = 1024;

/**
 * Records `ranges` of `session` lost for `reason`, except what earlier declarations hold; returns how many of the new
 * ones were not stored. Its cost grows with the ranges it declares and the recorded ones within their span, never
 * with all of the session's: one round of indexed finds (the range before the first, those over the span, the
 * refusal mark, the session's range count), one find of the readings stored inside the fresh parts, then one write
 * of the merged ranges and the count, and one of the summary. The readings are counted before the ranges are
 * written, so a failure before the end leaves the rest to be recorded (and counted) when the writer tries again.
 * Throws LossRefusedError when the session would keep more than LOSS_RANGES_KEPT_MAX ranges.
 */
export async function recordLosses(
  { db, bounds, writeOptions, rangesKeptMax = LOSS_RANGES_KEPT_MAX }: LossParts,
  deviceId: string,
  session: string,
  reason: LossReason,
  ranges: readonly SeqRange[],
): Promise<number> {
  if (ranges.length === 0) return 0;
  const { near, mark, kept } = await lookAround({ db, bounds }, deviceId, session, ranges);
  const settled: SeqRange[] = mark > 0 ? [[1, mark]] : [];
  const covered = near.reduce((set, { from, to }) => addRange(set, [from, to]), settled);
  const fresh = subtractRanges(ranges, covered);
  if (fresh.length === 0) return 0;
  const stored = await storedWithin(db, bounds, deviceId, session, fresh);
  const parts = fresh.map(([from, to], i) => ({ from, to, lost: to - from + 1 - stored[i]! }));
  const total = parts.reduce((sum, part) => sum + part.lost, 0);
  const merged = mergeLosses(near, parts);
  const gone = merged.flatMap((m) => m.replaces.filter((from) => from !== m.from));
  const added = merged.filter((m) => !m.replaces.includes(m.from)).length - gone.length;
  if (added > 0 && kept + added > rangesKeptMax) {
    throw new LossRefusedError(
      `session ${session} would keep ${kept + added} lost ranges, over the ${rangesKeptMax} kept per session`,
    );
  }
  const declaredAt = new Date();
  const key = (from: number) => `${deviceId} ${session} ${from}`;
  // A range of its own is new: inserted (a concurrent writer's copy fails the write, and the retry finds it); one
  // that grew a recorded range replaces it.
  const ops: AnyBulkWriteOperation<LossDocument>[] = merged.map(({ from, to, lost, replaces }) => {
    const document = { _id: key(from), deviceId, session, from, to, reason, lost, declaredAt };
    if (replaces.length === 0) return { insertOne: { document } };
    return { replaceOne: { filter: { _id: key(from) }, replacement: document, upsert: true } };
  });
  if (gone.length > 0) ops.push({ deleteMany: { filter: { _id: { $in: gone.map(key) } } } });
  await db.collection<LossDocument>(LOSSES_COLLECTION).bulkWrite(ops, { ...writeOptions, ordered: true });
  // Then, together, the session's range count and the device's summary: one failing fails the batch, and the retry
  // finds the ranges recorded and counts nothing again (the range count may then stay low by this message's ranges).
  const count = { _id: countId(deviceId, session) };
  await Promise.all([
    added !== 0 &&
      db
        .collection<RangeCountDocument>(LOSSES_COLLECTION)
        .updateOne(count, { $inc: { ranges: added } }, { ...writeOptions, upsert: true }),
    total > 0 &&
      db
        .collection<DeviceSummaryDocument>(DEVICES_COLLECTION)
        .bulkWrite(lostUpdate(deviceId, total, declaredAt), { ...writeOptions, ordered: true }),
  ]);
  return total;
}

/**
 * One round of finds, sent together: the recorded ranges that overlap or touch `ranges`' span (the nearest one before
 * it, and those starting inside it), the device's refusal mark in `session` and how many ranges the session keeps.
 */
async function lookAround(
  { db, bounds }: Pick<LossParts, 'db' | 'bounds'>,
  deviceId: string,
  session: string,
  ranges: readonly SeqRange[],
) {
  const losses: Collection<LossDocument> = db.collection(LOSSES_COLLECTION);
  const [first, last] = [ranges[0]![0], ranges.at(-1)![1]];
  const refusal = { _id: deviceId, 'refusedThrough.session': session };
  const [before, within, [summary], [count]] = await Promise.all([
    losses.find({ deviceId, session, from: { $lt: first } }, { sort: { from: -1 }, limit: 1, ...bounds }).toArray(),
    losses
      .find({ deviceId, session, from: { $gte: first, $lte: last + 1 } }, { sort: { from: 1 }, ...bounds })
      .toArray(),
    db
      .collection<DeviceSummaryDocument>(DEVICES_COLLECTION)
      .find(refusal, { limit: 1, ...bounds })
      .toArray(),
    db
      .collection<RangeCountDocument>(LOSSES_COLLECTION)
      .find({ _id: countId(deviceId, session) }, { limit: 1, ...bounds })
      .toArray(),
  ]);
  return {
    near: [...before.filter(({ to }) => to >= first - 1), ...within],
    mark: summary?.refusedThrough?.seq ?? 0,
    kept: count?.ranges ?? 0,
  };
}

// Only the seq of each stored reading comes back: mongod answers it from the unique index alone (a covered query),
// and neither side encodes nor decodes the readings' values and times.
const SEQ_ONLY = { _id: 0, seq: 1 } as const;

/**
 * How many readings each of `ranges` holds in the store: one indexed find over their span, counted as its batches
 * come, so what is held at once is a batch, whatever the span holds. The span's stored readings come back (those
 * between the ranges too): an `$or` of a range each would fetch fewer, but costs the MongoDB stand-in a test of
 * every clause against every reading of the span.
 */
async function storedWithin(
  db: Db,
  bounds: LossParts['bounds'],
  deviceId: string,
  session: string,
  ranges: readonly SeqRange[],
): Promise<number[]> {
  const seq = { $gte: ranges[0]![0], $lte: ranges.at(-1)![1] };
  const counter = createRangeCounter(ranges);
  const cursor = db
    .collection<ReadingDocument>(READINGS_COLLECTION)
    .find({ deviceId, session, seq }, { sort: { seq: 1 }, projection: SEQ_ONLY, batchSize: COUNT_BATCH, ...bounds });
  for await (const doc of cursor) counter.add(doc.seq as number);
  return counter.counts;
}

/** Whether a declared lost range of `session` holds `seq`. */
export async function declaredLost(
  { db, bounds }: Pick<LossParts, 'db' | 'bounds'>,
  deviceId: string,
  session: string,
  seq: number,
): Promise<boolean> {
  // The nearest range starting at or below it (one index step; ranges are disjoint), then whether it reaches it.
  const [nearest] = await db
    .collection<LossDocument>(LOSSES_COLLECTION)
    .find({ deviceId, session, from: { $lte: seq } }, { sort: { from: -1 }, limit: 1, ...bounds })
    .toArray();
  return nearest !== undefined && nearest.to >= seq;
}
