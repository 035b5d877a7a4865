// The `readings` collection in MongoDB: its indexes, the insert of a batch (a duplicate key counts as stored), and
// the bounded queries behind /api/readings and /api/devices.
//
// Each reading is one document with a plain ObjectId `_id` and a unique index on { deviceId, session, seq }, rather
// than that triple as a compound `_id`: the same index answers "one document per reading" and the `before=<seq>`
// query (a compound `_id` would need a second index on the top-level fields for that, or documents that keep the
// fields only inside `_id`), documents read as they are stored, and ObjectIds keep `_id` inserts append-only. The
// price is that uniqueness holds only once the index exists, so nothing is inserted before createIndexes succeeded.
// A second index, { deviceId, receivedAt: -1, seq: -1 }, serves "newest first" for a device without a sort in memory:
// newest by the backend's time of receipt, never by the device's clock (docs/contract.md#readings).
import {
  MongoBulkWriteError,
  ObjectId,
  type Abortable,
  type BulkWriteOptions,
  type Collection,
  type IndexDescription,
  type MongoClient,
} from 'mongodb';
import { settledBy } from '../../lib/with-deadline.ts';
import { READINGS_COLLECTION, toView, type ReadingDocument, type ReadingView } from './reading-document.ts';
import { declaredLost, LOSS_INDEXES, LOSSES_COLLECTION, recordLosses } from './loss-records.ts';
import { LOSS_RANGES_KEPT_MAX, passRefusal } from './loss-refusal.ts';
import type { LossReason, SeqRange } from '../../lib/device-protocol.ts';
import type { ReadingsQuery } from './readings-query.ts';
import { DEVICES_COLLECTION, refusedUpdates, storedUpdates, type DeviceSummaryDocument } from './device-summary.ts';
import { createDeviceListStore, type DeviceListStore } from './device-list-store.ts';
import { createStoreGuard, type Bounds } from '../database/store-guard.ts';
import { createTurnBudget } from '../../lib/turn-budget.ts';
import { createSummaryWrites } from './summary-writes.ts';

export { READINGS_COLLECTION };

/** Created at start-up (and before the first insert); the names are the ones mongod would give them. */
const DEVICE_INDEXES: IndexDescription[] = [
  { key: { latestKey: 1 }, name: 'latestKey_1' },
  { key: { connected: 1, backlog: -1 }, name: 'connected_1_backlog_-1' },
];

const READING_INDEXES: IndexDescription[] = [
  { key: { deviceId: 1, session: 1, seq: 1 }, name: 'deviceId_1_session_1_seq_1', unique: true },
  { key: { deviceId: 1, receivedAt: -1, seq: -1 }, name: 'deviceId_1_receivedAt_-1_seq_-1' },
];

export interface InsertResult {
  inserted: number;
  /** Positions (in the batch) of readings that were stored before: a resend. */
  duplicates: number[];
}

export interface ReadingStore extends DeviceListStore {
  /** Creates the indexes unless that already succeeded; concurrent callers share one attempt. */
  ensureIndexes(): Promise<void>;
  /** Writes a batch unordered, acknowledged by a majority with journaling; throws DatabaseUnavailableError. */
  insert(docs: ReadingDocument[]): Promise<InsertResult>;
  /**
   * Whether every reading of `session` up to `seq` is known stored, refused or lost: that reading is stored (the
   * unique index), a declared lost range holds it, or the device's summary says an ack ended on a refusal at or past
   * it. Throws DatabaseUnavailableError.
   */
  settled(deviceId: string, session: string, seq: number): Promise<boolean>;
  /**
   * Records ranges of `session` the device declared lost for `reason` (once, however often declared); returns how
   * many of the new ones were never stored. Throws DatabaseUnavailableError.
   */
  recordLosses(deviceId: string, session: string, reason: LossReason, ranges: readonly SeqRange[]): Promise<number>;
  /** Records that an ack of `session` ends on the refused reading `seq` (before it is sent), for `settled`. */
  refusedThrough(deviceId: string, session: string, seq: number): Promise<void>;
  /** Newest first; throws DatabaseUnavailableError. */
  readings(query: ReadingsQuery): Promise<ReadingView[]>;
}

export interface ReadingStoreOptions {
  client: MongoClient;
  databaseName: string;
  /** The database monitor's view: while disconnected every call fails at once instead of waiting to time out. */
  isConnected: () => boolean;
  /** The URI, so that driver messages are scrubbed of its password before anyone sees them. */
  uri: string;
  /** Bound on each query request (maxTimeMS on the server, an abort on the client). */
  queryTimeoutMs?: number;
  /** wtimeoutMS: how long a replica set may take to acknowledge a write by a majority. */
  writeTimeoutMs?: number;
  /**
   * Bound, on the client, on each write (an insert, the index creation): past it the write is abandoned and fails,
   * and the writer retries. The driver alone may never settle one (see `settledBy`).
   */
  writeDeadlineMs?: number;
  /** The most lost ranges kept per device session (loss-refusal.ts); a declaration past it is refused. */
  lossRangesKeptMax?: number;
  /** Each request the server answered (store-guard.ts). */
  onAnswer?: () => void;
}

const NEWEST_FIRST = { receivedAt: -1, seq: -1 } as const;

// Serializing a batch is the backend's heaviest synchronous work: one batch per loop turn (the loop is the
// process's, so one budget for every store), so that 500 sockets' writes landing together do not hold /api/ready
// (or a device's frame) back for all of them at once.
const serializing = createTurnBudget();

export function createReadingStore({
  client,
  databaseName,
  isConnected,
  uri,
  queryTimeoutMs = 2000,
  writeTimeoutMs = 5000,
  writeDeadlineMs = writeTimeoutMs + 1000,
  lossRangesKeptMax = LOSS_RANGES_KEPT_MAX,
  onAnswer,
}: ReadingStoreOptions): ReadingStore {
  const db = client.db(databaseName);
  const collection: Collection<ReadingDocument> = db.collection(READINGS_COLLECTION);
  const devices: Collection<DeviceSummaryDocument> = db.collection(DEVICES_COLLECTION);
  const guard = createStoreGuard({ isConnected, uri, queryTimeoutMs, writeDeadlineMs, onAnswer });
  const writeConcern = { w: 'majority' as const, j: true, wtimeoutMS: writeTimeoutMs };
  const summaries = createSummaryWrites(devices, guard, writeConcern);
  const ensureIndexes = createIndexing(db, guard);

  async function newest(deviceId: string, options: Bounds): Promise<ReadingDocument | undefined> {
    const [doc] = await collection.find({ deviceId }, { sort: NEWEST_FIRST, limit: 1, ...options }).toArray();
    return doc;
  }

  /** One unordered insertMany; only duplicates (and no write-concern failure) means every reading is stored. */
  const insertReadings = (docs: ReadingDocument[]) =>
    guard.write('write', async ({ signal }): Promise<InsertResult> => {
      try {
        const options: BulkWriteOptions & Abortable = { ordered: false, writeConcern, signal };
        const { insertedCount } = await settledBy(collection.insertMany(docs, options), signal);
        return { inserted: insertedCount, duplicates: [] };
      } catch (error) {
        const writeErrors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [];
        const resent = writeErrors.length > 0 && writeErrors.every((e) => e.code === 11000);
        if (!resent || (error as MongoBulkWriteError).result.getWriteConcernError()) throw error;
        return { inserted: (error as MongoBulkWriteError).insertedCount, duplicates: writeErrors.map((e) => e.index) };
      }
    });

  return {
    ensureIndexes,

    async insert(docs) {
      await ensureIndexes();
      await summaries.replay();
      const result = await serializing.turn().then(() => insertReadings(docs));
      // The devices' summaries, with a deadline of their own (the readings' may have passed while their answer was
      // read). A failure fails the batch, which is written again as resends: the summary write is kept and sent
      // again as it was (above) before any later insert, so those readings are counted once (backend/README.md).
      await summaries.write(storedUpdates(docs, result.duplicates, new ObjectId().toHexString()));
      return result;
    },

    settled: (deviceId, session, seq) =>
      guard.query(async (bounds) => {
        const refused = { _id: deviceId, 'refusedThrough.session': session, 'refusedThrough.seq': { $gte: seq } };
        const found = await Promise.all([
          collection.find({ deviceId, session, seq }, { limit: 1, ...bounds }).toArray(),
          devices.find(refused, { limit: 1, ...bounds }).toArray(),
        ]);
        return found.some((docs) => docs.length > 0) || (await declaredLost({ db, bounds }, deviceId, session, seq));
      }),

    async recordLosses(deviceId, session, reason, ranges) {
      await ensureIndexes();
      const parts = { db, writeOptions: { writeConcern }, rangesKeptMax: lossRangesKeptMax };
      return guard
        .write('lost ranges', ({ signal }) => {
          const bounds = { maxTimeMS: writeDeadlineMs, signal };
          return settledBy(recordLosses({ ...parts, bounds }, deviceId, session, reason, ranges), signal);
        })
        .catch(passRefusal);
    },

    refusedThrough: (deviceId, session, seq) =>
      guard.write('refusal mark', async ({ signal }) => {
        const options: BulkWriteOptions & Abortable = { ordered: true, writeConcern, signal };
        await settledBy(devices.bulkWrite(refusedUpdates(deviceId, session, seq), options), signal);
      }),

    readings: ({ deviceId, limit, before }) =>
      guard.query(async (bounds) => {
        if (before && 'seq' in before) {
          const latest = await newest(deviceId, bounds);
          if (!latest) return [];
          const filter = { deviceId, session: latest.session, seq: { $lt: before.seq } };
          const docs = await collection.find(filter, { sort: { seq: -1 }, limit, ...bounds }).toArray();
          return docs.map(toView);
        }
        const filter = before ? { deviceId, receivedAt: { $lt: before.time } } : { deviceId };
        const docs = await collection.find(filter, { sort: NEWEST_FIRST, limit, ...bounds }).toArray();
        return docs.map(toView);
      }),

    ...createDeviceListStore({ db, guard, newest }),
  };
}

/**
 * Creates the indexes unless that already succeeded; concurrent callers share one attempt, and after a failure the
 * next caller tries again. createIndexes takes no signal: a creation past its deadline is left to the driver.
 */
function createIndexing(db: ReturnType<MongoClient['db']>, guard: ReturnType<typeof createStoreGuard>) {
  let indexes: Promise<void> | undefined;
  let indexed = false;
  return function ensureIndexes(): Promise<void> {
    if (indexed) return Promise.resolve();
    indexes ??= guard
      .write('index creation', async ({ signal }) => {
        const all = Promise.all([
          db.collection(READINGS_COLLECTION).createIndexes(READING_INDEXES),
          db.collection(DEVICES_COLLECTION).createIndexes(DEVICE_INDEXES),
          db.collection(LOSSES_COLLECTION).createIndexes(LOSS_INDEXES),
        ]);
        await settledBy(all, signal);
        indexed = true;
      })
      .finally(() => (indexes = undefined));
    return indexes;
  };
}
