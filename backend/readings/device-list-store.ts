// The store's calls on the `devices` collection (device-summary.ts): the device list (a page by id, or those needing
// attention first, in three commands at most at any fleet size), the sockets' presence, and the backfill of devices
// whose readings predate the summaries.
import type { BulkWriteOptions, Abortable, Collection, Db, Document } from 'mongodb';
import { settledBy } from '../../lib/with-deadline.ts';
import type { DevicesQuery } from './devices-query.ts';
import {
  backfillUpdates,
  DEVICES_COLLECTION,
  LOST_ATTENTION_MS,
  PRESENCE_STALE_MS,
  presenceUpdate,
  toDeviceView,
  type DeviceSummaryDocument,
  type DeviceView,
  type PresenceState,
} from './device-summary.ts';
import { READINGS_COLLECTION, type ReadingDocument } from './reading-document.ts';
import type { Bounds, StoreGuard } from '../database/store-guard.ts';

// The backfill asks two indexed questions per device; this many devices at a time.
const BACKFILL_CONCURRENCY = 16;

export interface DeviceListStore {
  /** A page of device summaries, or those needing attention first: three commands at most, at any fleet size. */
  devices(query: DevicesQuery): Promise<{ total: number; devices: DeviceView[]; next: string | null }>;
  /** Writes what this replica's sockets say of their devices (connect, heartbeat, close). */
  presence(states: PresenceState[]): Promise<void>;
  /** Summarises each device with stored readings but no summary yet (readings older than the summaries). */
  backfill(): Promise<number>;
}

interface DeviceListParts {
  db: Db;
  guard: StoreGuard;
  /** A device's newest stored reading. */
  newest(deviceId: string, bounds: Bounds): Promise<ReadingDocument | undefined>;
}

export function createDeviceListStore({ db, guard, newest }: DeviceListParts): DeviceListStore {
  const summaries: Collection<DeviceSummaryDocument> = db.collection(DEVICES_COLLECTION);
  const command = (doc: Document, { maxTimeMS, signal }: Bounds) => db.command({ ...doc, maxTimeMS }, { signal });

  /** Connected devices holding readings, and devices that lost some lately, first; then the longest silent. */
  async function attention(limit: number, bounds: Bounds, now: number): Promise<DeviceSummaryDocument[]> {
    const since = new Date(now - PRESENCE_STALE_MS);
    const lostSince = new Date(now - LOST_ATTENTION_MS);
    const behindOrLost = {
      $or: [{ connected: true, lastSeenAt: { $gte: since }, backlog: { $gt: 0 } }, { lostAt: { $gte: lostSince } }],
    };
    const [behind, silent] = await Promise.all([
      summaries.find(behindOrLost, { sort: { backlog: -1 }, limit, ...bounds }).toArray(),
      // Never read first (the empty key), the one heard from longest ago first among them.
      summaries.find({}, { sort: { latestKey: 1, lastSeenAt: 1 }, limit, ...bounds }).toArray(),
    ]);
    const seen = new Set<string>();
    return [...behind, ...silent].filter((doc) => !seen.has(doc._id) && seen.add(doc._id)).slice(0, limit);
  }

  return {
    devices: (query) =>
      guard.query(async (bounds) => {
        const now = Date.now();
        const total = command({ count: DEVICES_COLLECTION, query: {} }, bounds).then((answer) => answer.n as number);
        // Awaited with the page below; until then, a failure of the page must not leave this rejection unhandled.
        total.catch(() => {});
        if ('attention' in query) {
          const devices = await attention(query.attention, bounds, now);
          return { total: await total, devices: devices.map((doc) => toDeviceView(doc, now)), next: null };
        }
        const filter = query.after === undefined ? {} : { _id: { $gt: query.after } };
        const page = await summaries.find(filter, { sort: { _id: 1 }, limit: query.limit + 1, ...bounds }).toArray();
        const devices = page.slice(0, query.limit).map((doc) => toDeviceView(doc, now));
        return { total: await total, devices, next: page.length > query.limit ? devices.at(-1)!.deviceId : null };
      }),

    async presence(states) {
      if (states.length === 0) return;
      await guard.write('device presence', async ({ signal }) => {
        const options: BulkWriteOptions & Abortable = { ordered: false, writeConcern: { w: 1 }, signal };
        await settledBy(summaries.bulkWrite(states.map(presenceUpdate), options), signal);
      });
    },

    backfill: () =>
      guard.query(async (bounds) => {
        const distinct = (name: string, key: string) =>
          command({ distinct: name, key, query: {} }, bounds).then(({ values }) => values as unknown[]);
        const [stored, summarised] = await Promise.all([
          distinct(READINGS_COLLECTION, 'deviceId'),
          distinct(DEVICES_COLLECTION, '_id'),
        ]);
        const known = new Set(summarised);
        const missing = stored.filter((id): id is string => typeof id === 'string' && !known.has(id));
        for (let i = 0; i < missing.length; i += BACKFILL_CONCURRENCY) {
          await Promise.all(missing.slice(i, i + BACKFILL_CONCURRENCY).map((id) => backfillOne(id)));
        }
        return missing.length;
      }),
  };

  /** One device's summary from its readings, with bounds of its own: a large backfill may outlast one request's. */
  async function backfillOne(deviceId: string) {
    const each = guard.bounds();
    const [latest, count] = await Promise.all([
      newest(deviceId, each),
      command({ count: READINGS_COLLECTION, query: { deviceId } }, each),
    ]);
    if (latest) await summaries.bulkWrite(backfillUpdates(latest, count.n as number), { ordered: true });
  }
}
