// The `losses` collection: the sequence ranges each device declared lost (evicted from its spool, never written),
// merged where they overlap or touch, so that a session keeps few disjoint ranges, a declaration repeated on a new
// socket is counted once, and a range's count is what of it the backend never stored. What lies at or below the
// device's refusal mark is settled (stored or refused), and no part of a new range: a refused reading is not stored,
// and not lost either.
import type { AnyBulkWriteOperation, BulkWriteOptions, Collection, Db, IndexDescription } from 'mongodb';
import type { LossReason, SeqRange } from '../../lib/device-protocol.ts';
import { addRange, subtractRanges } from '../../lib/seq-ranges.ts';
import { countWithin, mergeLosses, type MergedLoss } from './loss-merge.ts';
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
}

/**
 * Records `ranges` of `session` lost for `reason`, except what earlier declarations hold; returns how many of the new
 * ones were not stored. Its cost grows with the ranges it declares and the recorded ones within their span, never
 * with all of the session's: one indexed look before the first range and one over the span, one find of the readings
 * stored inside the fresh parts, then one write of the merged ranges. The readings are counted before the ranges are
 * written, so a failure before the end leaves the rest to be recorded (and counted) when the writer tries again.
 */
export async function recordLosses(
  { db, bounds, writeOptions }: LossParts,
  deviceId: string,
  session: string,
  reason: LossReason,
  ranges: readonly SeqRange[],
): Promise<number> {
  if (ranges.length === 0) return 0;
  const losses: Collection<LossDocument> = db.collection(LOSSES_COLLECTION);
  const summaries: Collection<DeviceSummaryDocument> = db.collection(DEVICES_COLLECTION);
  const [first, last] = [ranges[0]![0], ranges.at(-1)![1]];
  const refusal = { _id: deviceId, 'refusedThrough.session': session };
  const [before, within, [summary]] = await Promise.all([
    losses.find({ deviceId, session, from: { $lt: first } }, { sort: { from: -1 }, limit: 1, ...bounds }).toArray(),
    losses
      .find({ deviceId, session, from: { $gte: first, $lte: last + 1 } }, { sort: { from: 1 }, ...bounds })
      .toArray(),
    summaries.find(refusal, { limit: 1, ...bounds }).toArray(),
  ]);
  const near = [...before.filter(({ to }) => to >= first - 1), ...within];
  const mark = summary?.refusedThrough?.seq ?? 0;
  const settled: SeqRange[] = mark > 0 ? [[1, mark]] : [];
  const covered = near.reduce((set, { from, to }) => addRange(set, [from, to]), settled);
  const fresh = subtractRanges(ranges, covered);
  if (fresh.length === 0) return 0;
  const stored = await storedWithin(db, bounds, deviceId, session, fresh);
  const parts = fresh.map(([from, to], i) => ({ from, to, lost: to - from + 1 - stored[i]! }));
  const total = parts.reduce((sum, part) => sum + part.lost, 0);
  const declaredAt = new Date();
  const merged = mergeLosses(near, parts);
  const doc = (m: MergedLoss): LossDocument => {
    const { from, to, lost } = m;
    return { _id: `${deviceId} ${session} ${from}`, deviceId, session, from, to, reason, lost, declaredAt };
  };
  const ops: AnyBulkWriteOperation<LossDocument>[] = merged.map((m) => ({
    replaceOne: { filter: { _id: doc(m)._id }, replacement: doc(m), upsert: true },
  }));
  const gone = merged.flatMap((m) => m.replaces.filter((from) => from !== m.from));
  if (gone.length > 0) {
    ops.push({ deleteMany: { filter: { _id: { $in: gone.map((from) => `${deviceId} ${session} ${from}`) } } } });
  }
  await losses.bulkWrite(ops, { ...writeOptions, ordered: true });
  if (total > 0) await summaries.bulkWrite(lostUpdate(deviceId, total, declaredAt), { ...writeOptions, ordered: true });
  return total;
}

/**
 * How many readings each of `ranges` holds in the store: one indexed find over their span, counted in one walk. The
 * span's stored readings come back (those between the ranges too): an `$or` of a range each would fetch fewer, but
 * costs the MongoDB stand-in a test of every clause against every reading of the span.
 */
async function storedWithin(
  db: Db,
  bounds: LossParts['bounds'],
  deviceId: string,
  session: string,
  ranges: readonly SeqRange[],
): Promise<number[]> {
  const seq = { $gte: ranges[0]![0], $lte: ranges.at(-1)![1] };
  const docs = await db
    .collection<ReadingDocument>(READINGS_COLLECTION)
    .find({ deviceId, session, seq }, { sort: { seq: 1 }, ...bounds })
    .toArray();
  return countWithin(
    ranges,
    docs.map(({ seq }) => seq),
  );
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
