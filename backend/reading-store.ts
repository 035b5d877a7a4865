// The `readings` collection in MongoDB: its indexes, the insert of a batch (a duplicate key counts as stored), and
// the bounded queries behind /api/readings and /api/devices.
//
// Each reading is one document with a plain ObjectId `_id` and a unique index on { deviceId, session, seq }, rather
// than that triple as a compound `_id`: the same index answers "one document per reading" and the `before=<seq>`
// query (a compound `_id` would need a second index on the top-level fields for that, or documents that keep the
// fields only inside `_id`), documents read as they are stored, and ObjectIds keep `_id` inserts append-only. The
// price is that uniqueness holds only once the index exists, so nothing is inserted before createIndexes succeeded.
// A second index, { deviceId, timestamp: -1, seq: -1 }, serves "newest first" for a device without a sort in memory.
import {
  MongoBulkWriteError,
  type Abortable,
  type BulkWriteOptions,
  type Collection,
  type Document,
  type IndexDescription,
  type MongoClient,
} from 'mongodb';
import { scrubSecrets } from '../lib/redact-url.ts';
import { deadlineSignal, settledBy } from '../lib/with-deadline.ts';
import { DatabaseUnavailableError } from './database-unavailable-error.ts';
import { toView, type ReadingDocument, type ReadingView } from './reading-document.ts';
import type { ReadingsQuery } from './readings-query.ts';

export const READINGS_COLLECTION = 'readings';

/** Created at start-up (and before the first insert); the names are the ones mongod would give them. */
const READING_INDEXES: IndexDescription[] = [
  { key: { deviceId: 1, session: 1, seq: 1 }, name: 'deviceId_1_session_1_seq_1', unique: true },
  { key: { deviceId: 1, timestamp: -1, seq: -1 }, name: 'deviceId_1_timestamp_-1_seq_-1' },
];

export interface DeviceSummary {
  /** The session of the device's newest reading. */
  session: string;
  lastReading: { seq: number; timestamp: string; value: string };
  readingsStored: number;
}

export interface InsertResult {
  inserted: number;
  /** Positions (in the batch) of readings that were stored before: a resend. */
  duplicates: number[];
}

export interface ReadingStore {
  /** Creates the indexes unless that already succeeded; concurrent callers share one attempt. */
  ensureIndexes(): Promise<void>;
  /** Writes a batch unordered, acknowledged by a majority with journaling; throws DatabaseUnavailableError. */
  insert(docs: ReadingDocument[]): Promise<InsertResult>;
  /** Newest first; throws DatabaseUnavailableError. */
  readings(query: ReadingsQuery): Promise<ReadingView[]>;
  /** The device ids with stored readings (plus `also`), each with its newest reading and count when it has any. */
  summaries(also: string[]): Promise<{ deviceIds: string[]; summaries: Map<string, DeviceSummary> }>;
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
}

const NEWEST_FIRST = { timestamp: -1, seq: -1 } as const;
// /api/devices asks two indexed questions per device; this many devices at a time.
const SUMMARY_CONCURRENCY = 16;

export function createReadingStore({
  client,
  databaseName,
  isConnected,
  uri,
  queryTimeoutMs = 2000,
  writeTimeoutMs = 5000,
  writeDeadlineMs = writeTimeoutMs + 1000,
}: ReadingStoreOptions): ReadingStore {
  const db = client.db(databaseName);
  const collection: Collection<ReadingDocument> = db.collection(READINGS_COLLECTION);
  let indexes: Promise<void> | undefined;
  let indexed = false;

  /**
   * A one-line DatabaseUnavailableError for whatever the driver threw; `deadline`: the request's, if it has one, and
   * what to say when it passed.
   */
  function unavailable(error: unknown, deadline?: { signal: AbortSignal; missed: string }): DatabaseUnavailableError {
    if (error instanceof DatabaseUnavailableError) return error;
    const { message, code } = error as { message?: string; code?: unknown };
    // An abort surfaces as whatever the driver was doing then ("Timed out during socket read", say).
    const timedOut = deadline?.signal.aborted === true || code === 50; // 50: MaxTimeMSExpired
    const reason = timedOut
      ? (deadline?.missed ?? `the database did not answer within ${queryTimeoutMs} ms`)
      : scrubSecrets(String(message ?? error), uri).split('\n')[0]!;
    return new DatabaseUnavailableError(timedOut ? 'timeout' : 'failed', reason, { cause: error });
  }

  const queryDeadline = (signal: AbortSignal) => ({
    signal,
    missed: `the database did not answer within ${queryTimeoutMs} ms`,
  });
  const writeDeadline = (what: string) => ({
    signal: deadlineSignal(writeDeadlineMs),
    missed: `the database did not acknowledge the ${what} within ${writeDeadlineMs} ms`,
  });

  function connected() {
    if (!isConnected()) throw new DatabaseUnavailableError('not-connected', 'the database is not connected');
  }

  /** One request's bounds: maxTimeMS for each command, and one deadline on the client for all of them. */
  const bounded = () => ({ maxTimeMS: queryTimeoutMs, signal: AbortSignal.timeout(queryTimeoutMs) });
  type Bounds = ReturnType<typeof bounded>;

  async function newest(deviceId: string, options: Bounds): Promise<ReadingDocument | undefined> {
    const [doc] = await collection.find({ deviceId }, { sort: NEWEST_FIRST, limit: 1, ...options }).toArray();
    return doc;
  }

  const command = (doc: Document, { maxTimeMS, signal }: Bounds) => db.command({ ...doc, maxTimeMS }, { signal });

  const store: ReadingStore = {
    ensureIndexes() {
      if (indexed) return Promise.resolve();
      if (!indexes) {
        const deadline = writeDeadline('index creation');
        const attempt = (async () => {
          connected();
          // createIndexes takes no signal: a write past its deadline is left to the driver, and tried anew.
          await settledBy(collection.createIndexes(READING_INDEXES), deadline.signal);
          indexed = true;
        })();
        indexes = attempt.catch((error) => {
          throw unavailable(error, deadline);
        });
        // Shared while it runs; after a failure the next caller tries again.
        void indexes.catch(() => {}).finally(() => (indexes = undefined));
      }
      return indexes;
    },

    async insert(docs) {
      connected();
      await store.ensureIndexes();
      const deadline = writeDeadline('write');
      try {
        const options: BulkWriteOptions & Abortable = {
          ordered: false,
          writeConcern: { w: 'majority', j: true, wtimeoutMS: writeTimeoutMs },
          signal: deadline.signal,
        };
        const result = await settledBy(collection.insertMany(docs, options), deadline.signal);
        return { inserted: result.insertedCount, duplicates: [] };
      } catch (error) {
        // Unordered: every reading was tried. Only duplicates (and no write-concern failure) means all are stored.
        if (error instanceof MongoBulkWriteError && !error.result.getWriteConcernError()) {
          const writeErrors = [error.writeErrors].flat();
          if (writeErrors.length > 0 && writeErrors.every((e) => e.code === 11000)) {
            return { inserted: error.insertedCount, duplicates: writeErrors.map((e) => e.index) };
          }
        }
        throw unavailable(error, deadline);
      }
    },

    async readings({ deviceId, limit, before }) {
      connected();
      const options = bounded();
      try {
        if (before && 'seq' in before) {
          const latest = await newest(deviceId, options);
          if (!latest) return [];
          const filter = { deviceId, session: latest.session, seq: { $lt: before.seq } };
          const docs = await collection.find(filter, { sort: { seq: -1 }, limit, ...options }).toArray();
          return docs.map(toView);
        }
        const filter = before ? { deviceId, timestamp: { $lt: before.time } } : { deviceId };
        const docs = await collection.find(filter, { sort: NEWEST_FIRST, limit, ...options }).toArray();
        return docs.map(toView);
      } catch (error) {
        throw unavailable(error, queryDeadline(options.signal));
      }
    },

    async summaries(also) {
      connected();
      const options = bounded();
      try {
        const { values } = await command({ distinct: READINGS_COLLECTION, key: 'deviceId', query: {} }, options);
        const stored = (values as unknown[]).filter((id): id is string => typeof id === 'string');
        const deviceIds = [...new Set([...stored, ...also])].sort();
        const summaries = new Map<string, DeviceSummary>();
        for (let i = 0; i < stored.length; i += SUMMARY_CONCURRENCY) {
          await Promise.all(
            stored.slice(i, i + SUMMARY_CONCURRENCY).map(async (deviceId) => {
              const [latest, count] = await Promise.all([
                newest(deviceId, options),
                command({ count: READINGS_COLLECTION, query: { deviceId } }, options),
              ]);
              if (!latest) return;
              const { session, seq, timestamp, value } = toView(latest);
              summaries.set(deviceId, { session, lastReading: { seq, timestamp, value }, readingsStored: count.n });
            }),
          );
        }
        return { deviceIds, summaries };
      } catch (error) {
        throw unavailable(error, queryDeadline(options.signal));
      }
    },
  };
  return store;
}
