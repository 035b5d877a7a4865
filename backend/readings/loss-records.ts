// The `losses` collection: the sequence ranges each device declared lost (evicted from its spool, never written),
// one document per range first declared, so that a declaration repeated on a new socket is counted once, and a
// range's count is what of it the backend never stored. What lies at or below the device's refusal mark is settled
// (stored or refused), and no part of a new range: a refused reading is not stored, and not lost either.
import type { AnyBulkWriteOperation, BulkWriteOptions, Collection, Db, IndexDescription } from 'mongodb';
import type { LossReason, SeqRange } from '../../lib/device-protocol.ts';
import { addRange, rangesSize, subtractRanges } from '../../lib/seq-ranges.ts';
import { DEVICES_COLLECTION, lostUpdate, type DeviceSummaryDocument } from './device-summary.ts';
import { READINGS_COLLECTION } from './reading-document.ts';

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
  reason: LossReason;
  /** Readings of the range the backend had not stored when it was declared. */
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
 * ones were not stored. The readings are counted before the ranges are written, so a failure before the end leaves
 * the rest to be recorded (and counted) when the writer tries the batch again.
 */
export async function recordLosses(
  { db, bounds, writeOptions }: LossParts,
  deviceId: string,
  session: string,
  reason: LossReason,
  ranges: readonly SeqRange[],
): Promise<number> {
  const losses: Collection<LossDocument> = db.collection(LOSSES_COLLECTION);
  const summaries: Collection<DeviceSummaryDocument> = db.collection(DEVICES_COLLECTION);
  const refusal = { _id: deviceId, 'refusedThrough.session': session };
  const [known, [summary]] = await Promise.all([
    losses.find({ deviceId, session }, { sort: { from: 1 }, ...bounds }).toArray(),
    summaries.find(refusal, { limit: 1, ...bounds }).toArray(),
  ]);
  const recorded = known.map(({ from, to }): SeqRange => [from, to]);
  const mark = summary?.refusedThrough?.seq ?? 0;
  const fresh = subtractRanges(ranges, mark > 0 ? addRange(recorded, [1, mark]) : recorded);
  if (fresh.length === 0) return 0;
  const declaredAt = new Date();
  const docs: LossDocument[] = [];
  for (const [from, to] of fresh) {
    const answer = await db.command(
      {
        count: READINGS_COLLECTION,
        query: { deviceId, session, seq: { $gte: from, $lte: to } },
        maxTimeMS: bounds.maxTimeMS,
      },
      { signal: bounds.signal },
    );
    const lost = rangesSize([[from, to]]) - (answer.n as number);
    docs.push({ _id: `${deviceId} ${session} ${from}`, deviceId, session, from, to, reason, lost, declaredAt });
  }
  const total = docs.reduce((sum, doc) => sum + doc.lost, 0);
  const ops: AnyBulkWriteOperation<LossDocument>[] = docs.map((doc) => ({ insertOne: { document: doc } }));
  await losses.bulkWrite(ops, { ...writeOptions, ordered: true });
  if (total > 0) {
    await summaries.bulkWrite([lostUpdate(deviceId, total, declaredAt)], { ...writeOptions, ordered: true });
  }
  return total;
}

/** Whether a declared lost range of `session` holds `seq`. */
export async function declaredLost(
  { db, bounds }: Pick<LossParts, 'db' | 'bounds'>,
  deviceId: string,
  session: string,
  seq: number,
): Promise<boolean> {
  const filter = { deviceId, session, from: { $lte: seq }, to: { $gte: seq } };
  const found = await db
    .collection<LossDocument>(LOSSES_COLLECTION)
    .find(filter, { limit: 1, ...bounds })
    .toArray();
  return found.length > 0;
}
