// The device summaries' writes after a stored batch, each kept until it succeeded: one that failed, or whose outcome is
// unknown, is sent again as it was before the next insert, and its batch token makes a second application count
// nothing (device-summary.ts storedUpdates).
import type { Abortable, AnyBulkWriteOperation, BulkWriteOptions, Collection, WriteConcernSettings } from 'mongodb';
import { settledBy } from '../../lib/with-deadline.ts';
import type { DeviceSummaryDocument } from './device-summary.ts';
import type { StoreGuard } from '../database/store-guard.ts';

type Ops = AnyBulkWriteOperation<DeviceSummaryDocument>[];

export interface SummaryWrites {
  /** Sends again every summary write not known to have succeeded; throws DatabaseUnavailableError. */
  replay(): Promise<void>;
  /** Sends `ops` (one batch's, with its token), kept for replay() until that succeeded; throws as replay(). */
  write(ops: Ops): Promise<void>;
}

export function createSummaryWrites(
  devices: Collection<DeviceSummaryDocument>,
  guard: StoreGuard,
  writeConcern: WriteConcernSettings,
): SummaryWrites {
  // Bounded by the writers at work: a writer whose batch failed replays these first, and fails again before adding.
  const pending = new Set<Ops>();
  // One send of each at a time. Every writer replays every pending write before its insert, and a batch's token
  // guards only against a second application before the device's next batch: two writers' sends of one write, the
  // second applied after that batch, would count its readings twice.
  const sending = new Map<Ops, Promise<void>>();

  function send(ops: Ops): Promise<void> {
    let sent = sending.get(ops);
    if (sent) return sent;
    sent = guard
      .write('device summary', async ({ signal }) => {
        const options: BulkWriteOptions & Abortable = { ordered: true, writeConcern, signal };
        await settledBy(devices.bulkWrite(ops, options), signal);
      })
      .then(() => void pending.delete(ops))
      .finally(() => sending.delete(ops));
    sending.set(ops, sent);
    return sent;
  }

  return {
    async replay() {
      await Promise.all([...pending].map(send));
    },
    async write(ops) {
      pending.add(ops);
      await send(ops);
    },
  };
}
