// The `devices` collection: one summary document per device, kept up to date as its readings are stored and as its
// socket connects, beats and closes, so that GET /api/devices costs a fixed number of commands at any fleet size and
// every backend replica answers the same. This module builds the update statements and reads the documents back;
// the store (reading-store.ts) runs them.
import type { AnyBulkWriteOperation } from 'mongodb';
import type { ReadingDocument } from './reading-document.ts';

export const DEVICES_COLLECTION = 'devices';

/** A device is shown connected only while the replica holding its socket refreshed `lastSeenAt` this recently. */
export const PRESENCE_STALE_MS = 15_000;
/** How often a replica refreshes `lastSeenAt` of the devices whose sockets it holds. */
export const PRESENCE_BEAT_MS = 5_000;

export interface DeviceSummaryDocument {
  _id: string;
  /** The session its last hello named (listed while connected; else its newest reading's). */
  session: string | null;
  /**
   * `receivedAt ISO|seq` zero-padded, so that "newer" is a string comparison (the empty string: no reading yet). By
   * the backend's time of receipt, never the device's clock: a clock set wrong can neither pin nor hide a reading.
   */
  latestKey: string;
  lastReading: { session: string; seq: number; timestamp: Date; value: string } | null;
  readingsStored: number;
  /** Readings the device declared lost and the backend never stored (absent until the first). */
  readingsLost?: number;
  /** When its latest declared loss was recorded: the status page lists it as needing attention for a day. */
  lostAt?: Date;
  connected: boolean;
  /** The backend process holding its socket, and that socket. */
  replica: string | null;
  connection: string | null;
  lastSeenAt: Date | null;
  backlog: number | null;
  /**
   * Where an ack of its last session ended on a refused reading: every reading up to `seq` is stored or refused. The
   * readings collection cannot say so (a refused reading is not stored), and a device resends from the seq after it.
   */
  refusedThrough?: { session: string; seq: number };
  /**
   * The token of the last stored batch counted in `readingsStored`: a summary write sent again (its first outcome
   * unknown, its reply lost) finds its own token and counts nothing twice.
   */
  countedBatch?: string;
}

/** What the replica holding a device's socket says of it. */
export interface PresenceState {
  deviceId: string;
  session: string;
  connected: boolean;
  replica: string;
  connection: string;
  backlog: number | null;
  at: Date;
}

/** A device as GET /api/devices lists it. */
export interface DeviceView {
  deviceId: string;
  session: string | null;
  connected: boolean;
  /** `receivedAt`: when the backend received it, what "latest" is ordered by (then `seq`), across devices too. */
  lastReading: { seq: number; timestamp: string; value: string; receivedAt: string } | null;
  readingsStored: number;
  /** Readings the device declared lost (evicted from its spool, never written) that were never stored. */
  readingsLost: number;
  backlog: number | null;
  lastSeenAt: string | null;
}

type Op = AnyBulkWriteOperation<DeviceSummaryDocument>;

const EMPTY = {
  session: null,
  latestKey: '',
  lastReading: null,
  readingsStored: 0,
  connected: false,
  replica: null,
  connection: null,
  lastSeenAt: null,
  backlog: null,
} as const;

/** Fields a first write sets, except those `set` (or $inc, $max) set itself: mongod refuses one field twice. */
function onInsert(...taken: string[]) {
  return Object.fromEntries(Object.entries(EMPTY).filter(([field]) => !taken.includes(field)));
}

/** The time of receipt `latestKey` starts with: the latest reading's, kept there since it was first stored. */
const receivedAtOf = (key: string) => key.slice(0, key.indexOf('|'));

/** The latest reading is the one received last (docs/contract.md, Device readings); in one frame, the highest seq. */
function latestKey(doc: Pick<ReadingDocument, 'receivedAt' | 'seq'>): string {
  return `${doc.receivedAt.toISOString()}|${String(doc.seq).padStart(16, '0')}`;
}

/** latestKey(a) > latestKey(b), without making the keys: a batch compares every reading it holds. */
function isLater(a: ReadingDocument, b: ReadingDocument): boolean {
  const at = a.receivedAt.getTime() - b.receivedAt.getTime();
  return at > 0 || (at === 0 && a.seq > b.seq);
}

/**
 * After a batch of readings was written (`duplicates`: positions of those stored before): count each device's new
 * ones, and make the newest of its new ones its latest reading unless a newer one is there already (a filter on
 * `latestKey`, so that neither a batch whose summary is written late nor another replica ever steps it back). A
 * resend is not new: it was received, and could be the latest, when it was first stored. The count is marked with
 * `token`, one per batch: the same statements sent again count nothing twice, so a summary write whose outcome is
 * unknown can be sent again as it was. Per device: the summary made if missing, the count, the latest.
 */
export function storedUpdates(docs: ReadingDocument[], duplicates: readonly number[], token: string): Op[] {
  const resent = new Set(duplicates);
  const byDevice = new Map<string, { inserted: number; newest: ReadingDocument | undefined }>();
  docs.forEach((doc, i) => {
    const seen = byDevice.get(doc.deviceId) ?? { inserted: 0, newest: undefined };
    if (!resent.has(i)) {
      seen.inserted += 1;
      if (!seen.newest || isLater(doc, seen.newest)) seen.newest = doc;
    }
    byDevice.set(doc.deviceId, seen);
  });
  return [...byDevice].flatMap(([_id, { inserted, newest }]): Op[] => [
    // The count cannot upsert: its filter misses a summary that holds the token, and the upsert would collide on _id.
    { updateOne: { filter: { _id }, update: { $setOnInsert: onInsert() }, upsert: true } },
    {
      updateOne: {
        filter: { _id, countedBatch: { $ne: token } },
        update: { $inc: { readingsStored: inserted }, $set: { countedBatch: token } },
      },
    },
    ...(newest ? [latestUpdate(newest)] : []),
  ]);
}

/** Makes `doc` its device's latest reading unless one received later is there already. */
function latestUpdate({ deviceId: _id, session, seq, timestamp, value, receivedAt }: ReadingDocument): Op {
  const key = latestKey({ receivedAt, seq });
  return {
    updateOne: {
      filter: { _id, latestKey: { $lt: key } },
      update: { $set: { latestKey: key, lastReading: { session, seq, timestamp, value } } },
    },
  };
}

/** A device found with readings but no summary (stored before this collection existed): its count and newest. */
export function backfillUpdates(newest: ReadingDocument, count: number): Op[] {
  const counted: Op = {
    updateOne: {
      filter: { _id: newest.deviceId },
      update: { $max: { readingsStored: count }, $setOnInsert: onInsert('readingsStored') },
      upsert: true,
    },
  };
  return [counted, latestUpdate(newest)];
}

/** Records that `session` is settled up to the refused reading `seq` (creating the summary if need be). */
export function refusedUpdates(deviceId: string, session: string, seq: number): Op[] {
  const behind = { $or: [{ 'refusedThrough.session': { $ne: session } }, { 'refusedThrough.seq': { $lt: seq } }] };
  return [
    { updateOne: { filter: { _id: deviceId }, update: { $setOnInsert: onInsert() }, upsert: true } },
    { updateOne: { filter: { _id: deviceId, ...behind }, update: { $set: { refusedThrough: { session, seq } } } } },
  ];
}

/** A device that lost readings this recently is listed among those needing attention. */
export const LOST_ATTENTION_MS = 24 * 60 * 60 * 1000;

/**
 * Counts `count` more readings of the device as declared lost at `at` (creating the summary if need be), held at
 * Number.MAX_SAFE_INTEGER: past it a double no longer counts one by one.
 */
export function lostUpdate(deviceId: string, count: number, at: Date): Op[] {
  const filter = { _id: deviceId };
  return [
    {
      updateOne: {
        filter,
        update: { $inc: { readingsLost: count }, $set: { lostAt: at }, $setOnInsert: onInsert() },
        upsert: true,
      },
    },
    { updateOne: { filter, update: { $min: { readingsLost: Number.MAX_SAFE_INTEGER } } } },
  ];
}

/** A socket's state, written by the replica holding it; a close only counts if no newer socket took over. */
export function presenceUpdate({ deviceId, session, connected, replica, connection, backlog, at }: PresenceState): Op {
  if (!connected) {
    // The backlog stays the last the device reported: what it still holds, as far as any replica knows.
    return {
      updateOne: {
        filter: { _id: deviceId, connection },
        update: { $set: { connected: false, lastSeenAt: at, backlog } },
      },
    };
  }
  const set = { session, connected, replica, connection, backlog, lastSeenAt: at };
  return {
    updateOne: {
      filter: { _id: deviceId },
      update: { $set: set, $setOnInsert: onInsert(...Object.keys(set)) },
      upsert: true,
    },
  };
}

/** The view of a summary; `connected` only while its replica's heartbeat is fresh at `now`. */
export function toDeviceView(doc: DeviceSummaryDocument, now: number): DeviceView {
  const seen = doc.lastSeenAt instanceof Date ? doc.lastSeenAt : null;
  const last = doc.lastReading;
  const connected = doc.connected === true && seen !== null && now - seen.getTime() <= PRESENCE_STALE_MS;
  return {
    deviceId: doc._id,
    // While connected, the session its hello named; else that of its newest reading.
    session: (connected ? doc.session : last?.session) ?? doc.session ?? last?.session ?? null,
    connected,
    lastReading: last && {
      seq: last.seq,
      timestamp: new Date(last.timestamp).toISOString(),
      value: last.value,
      receivedAt: receivedAtOf(doc.latestKey),
    },
    readingsStored: doc.readingsStored ?? 0,
    readingsLost: doc.readingsLost ?? 0,
    backlog: doc.backlog ?? null,
    lastSeenAt: seen?.toISOString() ?? null,
  };
}
