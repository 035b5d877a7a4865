// One device socket's way from readings received to readings acknowledged: check, batch, write, ack, in order.
//
// One write is in flight per socket; what arrives meanwhile waits and goes into the next write together, so a
// backlog drains at database speed (a round trip per batch, not per reading). Once MongoDB acknowledged a write,
// each session in the batch gets one cumulative ack (refused readings named in it) up to where every reading of it is
// known stored or refused (ack-marks.ts): a session's first frame on a socket that does not start at seq 1 costs one
// lookup of the reading before it, readings past a gap wait unacknowledged until it is filled, and an ack ending on
// a refusal is recorded first (a lookup could not find a refused reading). When a write fails, its batch
// goes back to the front of the queue and is retried with backoff, and nothing is acknowledged meanwhile. Past the
// bound on what it holds the writer drops its copies and has the socket closed with 1013: the device still has
// them and resends after it reconnects. A range the device declares lost goes through the same queue: recorded
// (after the readings written before it, so that those count as stored) and then acknowledged past.
import {
  DEVICE_UNACKED_IN_FLIGHT,
  type AckMessage,
  type LossReason,
  type Reading,
  type SeqRange,
} from '../lib/device-protocol.ts';
import { createBackoff } from '../lib/backoff.ts';
import type { Logger } from '../lib/logger.ts';
import type { SummedWarning } from '../lib/summed-warning.ts';
import type { HeldBudget } from './held-budget.ts';
import type { InsertResult, ReadingStore } from './reading-store.ts';
import { createAckMarks } from './ack-marks.ts';
import { createReceiptClock } from './receipt-clock.ts';
import { toDocument, type ReadingDocument, type RefusalCode } from './reading-document.ts';

/** Shared by every socket's writer, so a thousand devices' troubles are a few lines, not thousands. */
interface WriterWarnings {
  refused: SummedWarning;
  failed: SummedWarning;
  dropped: SummedWarning;
}

export interface ReadingWriterOptions {
  deviceId: string;
  store: Pick<ReadingStore, 'insert' | 'settled' | 'refusedThrough' | 'recordLosses'>;
  /**
   * Shared by this process's writers: per device, the last mark acknowledged, so that a device reconnecting here
   * resumes without a lookup.
   */
  lastAcked?: Map<string, { session: string; seq: number }>;
  send: (ack: AckMessage) => void;
  /** Called once, after the writer dropped everything it held over its bound: close the socket with 1013. */
  overflow: (why: string) => void;
  warnings: WriterWarnings;
  log: Logger;
  /** The bytes all sockets may hold together. */
  budget: HeldBudget;
  /** Readings this socket may hold (received, not yet acknowledged, including those waiting past a gap). */
  heldMax?: number;
  backoff?: { initialMs: number; maxMs: number };
  /** Told each reading refused (by code) and each reading dropped over the bound (`over_bound`), for metrics. */
  onRefused?: (reason: RefusalCode | 'over_bound', count: number) => void;
  /** Told the readings newly recorded lost (declared, and not stored), by the device's reason, for metrics. */
  onLost?: (reason: LossReason, count: number) => void;
}

export interface ReadingWriter {
  /**
   * Takes a frame's readings of one session, in order; `receivedAt` is stored with each (by default the socket's
   * receipt clock: a later frame is always stamped later, which is what makes a reading a device's latest).
   */
  accept(session: string, readings: Reading[], receivedAt?: Date): void;
  /** Takes a `lost` message's ranges of one session: recorded, then acknowledged past like stored readings. */
  declare(session: string, reason: LossReason, ranges: readonly SeqRange[]): void;
  /** Stops: forgets what it holds, sends no more acks, retries no more. */
  close(): void;
}

interface Item {
  session: string;
  seq: number;
  /** Undefined: refused, or a lost range. */
  doc: ReadingDocument | undefined;
  bytes: number;
  /** A range declared lost: from `seq` to `through`. */
  lost?: { through: number; reason: LossReason };
}

export function createReadingWriter({
  deviceId,
  store,
  lastAcked = new Map(),
  send,
  overflow,
  warnings,
  log,
  budget,
  heldMax = 2 * DEVICE_UNACKED_IN_FLIGHT,
  backoff = { initialMs: 100, maxMs: 2000 },
  onRefused,
  onLost,
}: ReadingWriterOptions): ReadingWriter {
  let queue: Item[] = [];
  let held = 0;
  let heldBytes = 0;
  let writing = false;
  let retry: NodeJS.Timeout | undefined;
  // Jittered, so that sockets that failed together do not all retry in the same instant.
  const retryDelays = createBackoff(backoff);
  let closed = false;
  const marks = createAckMarks();
  const receipt = createReceiptClock();

  function release(items: Item[]) {
    const bytes = items.reduce((sum, item) => sum + item.bytes, 0);
    held -= items.length;
    heldBytes -= bytes;
    budget.give(bytes);
  }

  function stop() {
    closed = true;
    clearTimeout(retry);
    budget.give(heldBytes);
    queue = [];
    held = 0;
    heldBytes = 0;
  }

  async function pump(): Promise<void> {
    if (closed || writing || retry || queue.length === 0) return;
    writing = true;
    const batch = queue;
    queue = [];
    const docs = batch.flatMap((item) => (item.doc ? [item.doc] : []));
    try {
      const learning = learnMarks(batch);
      if (learning) await learning;
      const result: InsertResult = docs.length > 0 ? await store.insert(docs) : { inserted: 0, duplicates: [] };
      // The write happened whether or not its socket is still open: the log says what the database now holds.
      logStored(batch, docs, result);
      await recordLosses(batch);
      if (closed) return;
      const waiting = marks.waiting();
      const acks = marks.settle(
        batch.map(({ session, seq, doc, lost }) => ({
          session,
          seq,
          refused: !doc && !lost,
          lostThrough: lost?.through,
        })),
      );
      held += marks.waiting() - waiting;
      // An ack ending on a refusal is recorded before it is sent: no stored reading could tell a lookup where it ended.
      const endings = acks.filter((ack) => ack.refused?.includes(ack.seq));
      if (endings.length > 0) {
        await Promise.all(endings.map((ack) => store.refusedThrough(deviceId, ack.session, ack.seq)));
        if (closed) return;
      }
      retryDelays.reset();
      release(batch);
      for (const ack of acks) {
        lastAcked.set(deviceId, { session: ack.session, seq: ack.seq });
        send(ack);
      }
    } catch (error) {
      if (closed) return;
      queue = batch.concat(queue);
      warnings.failed.note({ deviceId, held, reason: (error as Error).message });
      retry = setTimeout(() => {
        retry = undefined;
        void pump();
      }, retryDelays.next());
      retry.unref();
    } finally {
      writing = false;
    }
    void pump(); // what arrived during the write
  }

  /**
   * Where each session new to this socket starts: at 0 if its first reading is seq 1, else at what this process last
   * acknowledged for it or, if that is short of the reading before the first, at that reading if it is settled.
   * Undefined when nothing needs asking; a failed lookup fails the batch like a failed write.
   */
  function learnMarks(batch: Item[]): Promise<void> | undefined {
    const firsts = new Map<string, number>();
    for (const { session, seq } of batch) {
      if (marks.through(session) === undefined) firsts.set(session, Math.min(seq, firsts.get(session) ?? seq));
    }
    const lookups: Promise<void>[] = [];
    for (const [session, first] of firsts) {
      const last = lastAcked.get(deviceId);
      const known = last?.session === session ? last.seq : 0;
      if (known >= first - 1) marks.start(session, known);
      else
        lookups.push(
          store.settled(deviceId, session, first - 1).then((s) => marks.start(session, s ? first - 1 : known)),
        );
    }
    return lookups.length > 0 ? Promise.all(lookups).then(() => {}) : undefined;
  }

  /** Records the batch's lost ranges (after its readings were written, so that those count as stored). */
  async function recordLosses(batch: Item[]) {
    for (const { session, seq, lost } of batch) {
      if (!lost) continue;
      const recorded = await store.recordLosses(deviceId, session, lost.reason, [[seq, lost.through]]);
      if (recorded > 0) onLost?.(lost.reason, recorded);
    }
  }

  /** Queues `items` unless that passes a bound (then drops everything and has the socket closed). */
  function enqueue(items: Item[]) {
    const bytes = items.reduce((sum, item) => sum + item.bytes, 0);
    const why =
      held + items.length > heldMax
        ? `over ${heldMax} readings held`
        : !budget.take(bytes)
          ? `the readings held for all sockets would pass ${budget.max} bytes`
          : undefined;
    if (why) {
      warnings.dropped.note({ deviceId, held: held + items.length, why });
      onRefused?.('over_bound', held + items.length);
      stop();
      overflow(why);
      return;
    }
    queue.push(...items);
    held += items.length;
    heldBytes += bytes;
    void pump();
  }

  function logStored(batch: Item[], docs: ReadingDocument[], { inserted, duplicates }: InsertResult) {
    if (!log.isLevelEnabled('debug')) return;
    const resent = new Set(duplicates);
    const readings = docs.filter((_, i) => !resent.has(i)).map(({ session, seq, value }) => ({ session, seq, value }));
    const refused = batch.filter((item) => !item.doc && !item.lost).length;
    log.debug({ deviceId, inserted, duplicates: duplicates.length, refused, readings }, 'readings stored');
  }

  return {
    accept(session, readings, receivedAt = receipt()) {
      if (closed) return;
      const items = readings.map((reading): Item => {
        const checked = toDocument(deviceId, session, reading, receivedAt);
        if ('refused' in checked) {
          warnings.refused.note({ deviceId, session, seq: reading.seq, reason: checked.refused });
          onRefused?.(checked.code, 1);
          return { session, seq: reading.seq, doc: undefined, bytes: checked.bytes };
        }
        return { session, seq: reading.seq, doc: checked.doc, bytes: checked.bytes };
      });
      enqueue(items);
    },
    declare(session, reason, ranges) {
      if (closed) return;
      enqueue(
        ranges.map(([from, to]) => ({ session, seq: from, doc: undefined, bytes: 64, lost: { through: to, reason } })),
      );
    },
    close: stop,
  };
}
