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
import type { DevicesQuery } from './devices-query.ts';
import {
  backfillUpdates,
  DEVICES_COLLECTION,
  PRESENCE_STALE_MS,
  presenceUpdate,
  refusedUpdates,
  storedUpdates,
  toDeviceView,
  type DeviceSummaryDocument,
  type DeviceView,
  type PresenceState,
} from './device-summary.ts';

export const READINGS_COLLECTION = 'readings';

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

export interface ReadingStore {
  /** Creates the indexes unless that already succeeded; concurrent callers share one attempt. */
  ensureIndexes(): Promise<void>;
  /** Writes a batch unordered, acknowledged by a majority with journaling; throws DatabaseUnavailableError. */
  insert(docs: ReadingDocument[]): Promise<InsertResult>;
  /**
   * Whether every reading of `session` up to `seq` is known stored or refused: that reading is stored (the unique
   * index), or the device's summary says an ack ended on a refusal at or past it. Throws DatabaseUnavailableError.
   */
  settled(deviceId: string, session: string, seq: number): Promise<boolean>;
  /** Records that an ack of `session` ends on the refused reading `seq` (before it is sent), for `settled`. */
  refusedThrough(deviceId: string, session: string, seq: number): Promise<void>;
  /** Newest first; throws DatabaseUnavailableError. */
  readings(query: ReadingsQuery): Promise<ReadingView[]>;
  /** A page of device summaries, or those needing attention first: three commands at most, at any fleet size. */
  devices(query: DevicesQuery): Promise<{ total: number; devices: DeviceView[]; next: string | null }>;
  /** Writes what this replica's sockets say of their devices (connect, heartbeat, close). */
  presence(states: PresenceState[]): Promise<void>;
  /** Summarises each device with stored readings but no summary yet (readings older than the summaries). */
  backfill(): Promise<number>;
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

const NEWEST_FIRST = { receivedAt: -1, seq: -1 } as const;
// The backfill asks two indexed questions per device; this many devices at a time.
const BACKFILL_CONCURRENCY = 16;

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
  const summaries: Collection<DeviceSummaryDocument> = db.collection(DEVICES_COLLECTION);
  let indexes: Promise<void> | undefined;
  let indexed = false;

  const unavailable = (error: unknown, deadline?: Deadline) => asUnavailable(error, uri, queryTimeoutMs, deadline);
  const writeConcern = { w: 'majority' as const, j: true, wtimeoutMS: writeTimeoutMs };

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
  const bounded = (): Bounds => ({ maxTimeMS: queryTimeoutMs, signal: AbortSignal.timeout(queryTimeoutMs) });

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
          const both = Promise.all([
            collection.createIndexes(READING_INDEXES),
            summaries.createIndexes(DEVICE_INDEXES),
          ]);
          await settledBy(both, deadline.signal);
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
      let result: InsertResult;
      try {
        const options: BulkWriteOptions & Abortable = { ordered: false, writeConcern, signal: deadline.signal };
        const { insertedCount } = await settledBy(collection.insertMany(docs, options), deadline.signal);
        result = { inserted: insertedCount, duplicates: [] };
      } catch (error) {
        // Unordered: every reading was tried. Only duplicates (and no write-concern failure) means all are stored.
        const writeErrors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [];
        const resent = writeErrors.length > 0 && writeErrors.every((e) => e.code === 11000);
        if (!resent || (error as MongoBulkWriteError).result.getWriteConcernError()) throw unavailable(error, deadline);
        result = {
          inserted: (error as MongoBulkWriteError).insertedCount,
          duplicates: writeErrors.map((e) => e.index),
        };
      }
      // The devices' summaries, with a deadline of their own (the readings' may have passed while their answer was
      // read). A failure fails the batch, which is written again: its readings then count as resent, so a device's
      // readingsStored may fall short by that batch, and its latest reading lag until the next (backend/README.md).
      const summaryDeadline = writeDeadline('device summary');
      try {
        const ops = storedUpdates(docs, result.duplicates);
        const options: BulkWriteOptions & Abortable = { ordered: true, writeConcern, signal: summaryDeadline.signal };
        await settledBy(summaries.bulkWrite(ops, options), summaryDeadline.signal);
      } catch (error) {
        throw unavailable(error, summaryDeadline);
      }
      return result;
    },

    async settled(deviceId, session, seq) {
      connected();
      const options = bounded();
      try {
        const refused = { _id: deviceId, 'refusedThrough.session': session, 'refusedThrough.seq': { $gte: seq } };
        const found = await Promise.all([
          collection.find({ deviceId, session, seq }, { limit: 1, ...options }).toArray(),
          summaries.find(refused, { limit: 1, ...options }).toArray(),
        ]);
        return found.some((docs) => docs.length > 0);
      } catch (error) {
        throw unavailable(error, queryDeadline(options.signal));
      }
    },

    async refusedThrough(deviceId, session, seq) {
      connected();
      const deadline = writeDeadline('refusal mark');
      try {
        const options: BulkWriteOptions & Abortable = { ordered: true, writeConcern, signal: deadline.signal };
        await settledBy(summaries.bulkWrite(refusedUpdates(deviceId, session, seq), options), deadline.signal);
      } catch (error) {
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
        const filter = before ? { deviceId, receivedAt: { $lt: before.time } } : { deviceId };
        const docs = await collection.find(filter, { sort: NEWEST_FIRST, limit, ...options }).toArray();
        return docs.map(toView);
      } catch (error) {
        throw unavailable(error, queryDeadline(options.signal));
      }
    },

    ...deviceListCalls({ summaries, connected, bounded, command, unavailable, queryDeadline, writeDeadline, newest }),
  };
  return store;
}

/** A request's deadline, and what to say when it passed. */
interface Deadline {
  signal: AbortSignal;
  missed: string;
}

/** A one-line DatabaseUnavailableError for whatever the driver threw; `deadline`: the request's, if it has one. */
function asUnavailable(error: unknown, uri: string, queryTimeoutMs: number, deadline?: Deadline) {
  if (error instanceof DatabaseUnavailableError) return error;
  const { message, code } = error as { message?: string; code?: unknown };
  // An abort surfaces as whatever the driver was doing then ("Timed out during socket read", say).
  const timedOut = deadline?.signal.aborted === true || code === 50; // 50: MaxTimeMSExpired
  const reason = timedOut
    ? (deadline?.missed ?? `the database did not answer within ${queryTimeoutMs} ms`)
    : scrubSecrets(String(message ?? error), uri).split('\n')[0]!;
  return new DatabaseUnavailableError(timedOut ? 'timeout' : 'failed', reason, { cause: error });
}

interface Bounds {
  maxTimeMS: number;
  signal: AbortSignal;
}

interface Deadline {
  signal: AbortSignal;
  missed: string;
}

/** What the device list's calls share with the rest of the store. */
interface StoreParts {
  summaries: Collection<DeviceSummaryDocument>;
  connected(): void;
  bounded(): Bounds;
  command(doc: Document, bounds: Bounds): Promise<Document>;
  unavailable(error: unknown, deadline?: Deadline): DatabaseUnavailableError;
  queryDeadline(signal: AbortSignal): Deadline;
  writeDeadline(what: string): Deadline;
  newest(deviceId: string, bounds: Bounds): Promise<ReadingDocument | undefined>;
}

/** The store's calls on the `devices` collection (device-summary.ts): the list, presence, and the backfill. */
function deviceListCalls(parts: StoreParts): Pick<ReadingStore, 'devices' | 'presence' | 'backfill'> {
  const { summaries, connected, bounded, command, unavailable, queryDeadline, writeDeadline, newest } = parts;
  return {
    async devices(query) {
      connected();
      const options = bounded();
      const now = Date.now();
      try {
        const total = command({ count: DEVICES_COLLECTION, query: {} }, options).then((answer) => answer.n as number);
        // Awaited with the page below; until then, a failure of the page must not leave this rejection unhandled.
        total.catch(() => {});
        if ('attention' in query) {
          const limit = query.attention;
          const since = new Date(now - PRESENCE_STALE_MS);
          const [behind, silent] = await Promise.all([
            summaries
              .find(
                { connected: true, lastSeenAt: { $gte: since }, backlog: { $gt: 0 } },
                { sort: { backlog: -1 }, limit, ...options },
              )
              .toArray(),
            // Never read first (the empty key), the one heard from longest ago first among them.
            summaries.find({}, { sort: { latestKey: 1, lastSeenAt: 1 }, limit, ...options }).toArray(),
          ]);
          const seen = new Set<string>();
          const devices = [...behind, ...silent]
            .filter((doc) => !seen.has(doc._id) && seen.add(doc._id))
            .slice(0, limit);
          return { total: await total, devices: devices.map((doc) => toDeviceView(doc, now)), next: null };
        }
        const filter = query.after === undefined ? {} : { _id: { $gt: query.after } };
        const page = await summaries.find(filter, { sort: { _id: 1 }, limit: query.limit + 1, ...options }).toArray();
        const devices = page.slice(0, query.limit).map((doc) => toDeviceView(doc, now));
        return { total: await total, devices, next: page.length > query.limit ? devices.at(-1)!.deviceId : null };
      } catch (error) {
        throw unavailable(error, queryDeadline(options.signal));
      }
    },

    async presence(states) {
      if (states.length === 0) return;
      connected();
      const deadline = writeDeadline('device presence');
      try {
        const options: BulkWriteOptions & Abortable = {
          ordered: false,
          writeConcern: { w: 1 },
          signal: deadline.signal,
        };
        await settledBy(summaries.bulkWrite(states.map(presenceUpdate), options), deadline.signal);
      } catch (error) {
        throw unavailable(error, deadline);
      }
    },

    async backfill() {
      connected();
      const options = bounded();
      try {
        const distinct = (name: string, key: string) =>
          command({ distinct: name, key, query: {} }, options).then(({ values }) => values as unknown[]);
        const [stored, summarised] = await Promise.all([
          distinct(READINGS_COLLECTION, 'deviceId'),
          distinct(DEVICES_COLLECTION, '_id'),
        ]);
        const known = new Set(summarised);
        const missing = stored.filter((id): id is string => typeof id === 'string' && !known.has(id));
        for (let i = 0; i < missing.length; i += BACKFILL_CONCURRENCY) {
          await Promise.all(
            missing.slice(i, i + BACKFILL_CONCURRENCY).map(async (deviceId) => {
              // Bounds of their own: a large backfill may take longer than one request's.
              const each = bounded();
              const [latest, count] = await Promise.all([
                newest(deviceId, each),
                command({ count: READINGS_COLLECTION, query: { deviceId } }, each),
              ]);
              if (latest) await summaries.bulkWrite(backfillUpdates(latest, count.n as number), { ordered: true });
            }),
          );
        }
        return missing.length;
      } catch (error) {
        throw unavailable(error, queryDeadline(options.signal));
      }
    },
  };
}
