// One device socket's way from readings received to readings acknowledged: check, batch, write, ack, in order.
//
// One write is in flight per socket; what arrives meanwhile waits and goes into the next write together, so a
// backlog drains at database speed (a round trip per batch, not per reading). Each write starts in an event-loop turn
// of its own, so that a frame handled in a slice (frame-queue.ts) never pays for an insert. Once MongoDB acknowledged
// a write, each session in the batch gets one cumulative ack (refused readings named in it) up to where every reading
// of it is known stored or refused (ack-marks.ts): a session's first frame on a socket that does not start at seq 1
// costs one lookup of the reading before it (session-starts.ts), readings past a gap wait unacknowledged until it is
// filled, and an ack ending on a refusal is recorded first (a lookup could not find a refused reading). When a write
// fails, its batch goes back to the front of the queue and is retried with backoff, and nothing is acknowledged
// meanwhile. Past the bound on what it holds (held-readings.ts) the writer drops its copies and has the socket closed
// with 1013: the device still has them and resends after it reconnects. A range the device declares lost goes through
// the same queue: recorded (after the readings written before it, so that those count as stored; what lies at or
// below the socket's ack mark is no loss) and then acknowledged past.
import {
  DEVICE_UNACKED_IN_FLIGHT,
  type AckMessage,
  type LossReason,
  type Reading,
  type SeqRange,
} from '../../lib/device-protocol.ts';
import { createBackoff } from '../../lib/backoff.ts';
import type { Logger } from '../../lib/logger.ts';
import type { SummedWarning } from '../../lib/summed-warning.ts';
import type { HeldBudget } from './held-budget.ts';
import type { DeviceLanes } from './device-lanes.ts';
import type { InsertResult, ReadingStore } from '../readings/reading-store.ts';
import { createAckMarks, type AckMarks } from './ack-marks.ts';
import { createHeldReadings, lostItems, readingItems, type HeldItem, type HeldReadings } from './held-readings.ts';
import { sessionStarts } from './session-starts.ts';
import { createReceiptClock } from './receipt-clock.ts';
import type { ReadingDocument, RefusalCode } from '../readings/reading-document.ts';
import { LossRefusedError } from '../readings/loss-refusal.ts';

/** Shared by every socket's writer, so a thousand devices' troubles are a few lines, not thousands. */
interface WriterWarnings {
  refused: SummedWarning;
  failed: SummedWarning;
  dropped: SummedWarning;
  /** A declaration the store refused (loss-refusal.ts): logged, summed, and its ranges left unacknowledged. */
  lossRefused: SummedWarning;
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
  /** Shared by this process's writers: one write in flight per device (device-lanes.ts). Without it, one per socket. */
  lanes?: DeviceLanes;
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
  /**
   * When the oldest reading waiting for a write was taken (performance.now()): queued behind a write in flight or
   * the device's other sockets' writes, not in flight itself nor waiting out a failed write's backoff (the database's
   * trouble, which its own check reports). Undefined when none waits.
   */
  waitingSince(): number | undefined;
}

export function createReadingWriter(options: ReadingWriterOptions): ReadingWriter {
  const { deviceId, store, lastAcked = new Map(), send, overflow, warnings, log, onRefused } = options;
  const { heldMax = 2 * DEVICE_UNACKED_IN_FLIGHT, backoff = { initialMs: 100, maxMs: 2000 } } = options;
  const held = createHeldReadings(options.budget, heldMax);
  let writing = false;
  const retry = createRetryTimer(backoff, () => void pump());
  let closed = false;
  const marks = createAckMarks();
  const receipt = createReceiptClock();
  const io: WriterIo = {
    deviceId,
    store,
    lastAcked,
    marks,
    held,
    log,
    onLost: options.onLost,
    lossRefused: warnings.lossRefused,
  };

  function stop() {
    closed = true;
    retry.cancel();
    held.clear();
  }

  async function pump(): Promise<void> {
    if (closed || writing || retry.pending() || held.queued === 0) return;
    writing = true;
    const release = options.lanes ? await options.lanes.acquire(deviceId) : () => {};
    if (closed) return release();
    // Taken once the device's turn came: what arrived while its other sockets wrote goes in this batch too.
    const batch = held.take();
    try {
      await write(batch);
    } catch (error) {
      if (closed) return;
      // Back to the front of the queue, tried again after a backoff; nothing is acked meanwhile.
      held.putBack(batch);
      warnings.failed.note({ deviceId, held: held.held, reason: (error as Error).message });
      retry.schedule();
    } finally {
      writing = false;
      release();
    }
    void pump(); // what arrived during the write
  }

  /** Writes `batch`, then sends its acks; throws when any step failed. The store paces writes (lib/turn-budget.ts). */
  async function write(batch: HeldItem[]) {
    const acks = await storeBatch(io, batch, () => closed);
    if (!acks) return;
    retry.succeeded();
    held.release(batch);
    for (const ack of acks) {
      lastAcked.set(deviceId, { session: ack.session, seq: ack.seq });
      send(ack);
    }
  }

  /** Queues `items` unless that passes a bound (then drops everything and has the socket closed). */
  function enqueue(items: HeldItem[]) {
    const why = held.add(items);
    if (why) {
      warnings.dropped.note({ deviceId, held: held.held + items.length, why });
      onRefused?.('over_bound', held.held + items.length);
      stop();
      overflow(why);
      return;
    }
    void pump();
  }

  return {
    accept(session, readings, receivedAt = receipt()) {
      if (closed) return;
      enqueue(
        readingItems(deviceId, session, readings, receivedAt, (seq, { refused, code }) => {
          warnings.refused.note({ deviceId, session, seq, reason: refused });
          onRefused?.(code, 1);
        }),
      );
    },
    declare(session, reason, ranges) {
      if (!closed) enqueue(lostItems(session, reason, ranges));
    },
    close: stop,
    waitingSince: () => (closed || retry.pending() ? undefined : held.oldestQueuedAt()),
  };
}

/** What the writer's I/O helpers share. */
interface WriterIo {
  deviceId: string;
  store: ReadingWriterOptions['store'];
  lastAcked: Map<string, { session: string; seq: number }>;
  marks: AckMarks;
  held: HeldReadings;
  log: Logger;
  onLost: ReadingWriterOptions['onLost'];
  lossRefused: SummedWarning;
}

/**
 * Stores `batch`: starts its new sessions' marks, inserts its readings, records its lost ranges, settles the marks
 * and records an ack ending on a refusal. Its acks, or undefined when the socket closed meanwhile.
 */
async function storeBatch(io: WriterIo, batch: HeldItem[], closed: () => boolean): Promise<AckMessage[] | undefined> {
  const { deviceId, store, marks, held } = io;
  const learning = learnMarks(io, batch);
  if (learning) await learning;
  // At or below its session's mark a reading is settled: stored, refused, or declared lost and counted so. Writing
  // it now would count a declared reading that arrives later as stored too (docs/contract.md#lost-readings).
  const docs = batch.flatMap(({ doc, session, seq }) => (doc && seq > (marks.through(session) ?? 0) ? [doc] : []));
  const result: InsertResult = docs.length > 0 ? await store.insert(docs) : { inserted: 0, duplicates: [] };
  // The write happened whether or not its socket is still open: the log says what the database now holds.
  logStored(io, batch, docs, result);
  await recordLosses(io, batch);
  if (closed()) return undefined;
  const waiting = marks.waiting();
  // A refused declaration settles nothing: what lies past its gap waits unacknowledged.
  const acks = marks.settle(batch.filter((item) => !item.lost?.refused).map(settledOf));
  held.waiting(marks.waiting() - waiting);
  // An ack ending on a refusal is recorded before it is sent: no stored reading could tell a lookup where it ended.
  const endings = acks.filter((ack) => ack.refused?.includes(ack.seq));
  if (endings.length > 0) {
    await Promise.all(endings.map((ack) => store.refusedThrough(deviceId, ack.session, ack.seq)));
    if (closed()) return undefined;
  }
  return acks;
}

const settledOf = ({ session, seq, doc, lost }: HeldItem) => ({
  session,
  seq,
  refused: !doc && !lost,
  lostThrough: lost?.through,
});

/**
 * Starts the marks of the sessions new to this socket (session-starts.ts): undefined when nothing needs asking; a
 * failed lookup fails the batch like a failed write.
 */
function learnMarks({ deviceId, store, lastAcked, marks }: WriterIo, batch: HeldItem[]): Promise<void> | undefined {
  const lookups: Promise<void>[] = [];
  for (const { session, known, lookup } of sessionStarts(batch, marks.through, lastAcked.get(deviceId))) {
    if (lookup === undefined) marks.start(session, known);
    else lookups.push(store.settled(deviceId, session, lookup).then((s) => marks.start(session, s ? lookup : known)));
  }
  return lookups.length > 0 ? Promise.all(lookups).then(() => {}) : undefined;
}

/**
 * Records the batch's lost ranges (after its readings were written, so that those count as stored), less what lies
 * at or below the socket's mark (stored, refused or recorded lost already) and the refusals the socket knows of: a
 * refused reading is counted refused, never lost too. What is left to record is fixed the first time, so that a
 * retry records the same. One call of the store per session and reason, whatever the number of ranges: a 1,000-range
 * message is one recording, not a thousand.
 */
async function recordLosses({ deviceId, store, marks, onLost, lossRefused }: WriterIo, batch: HeldItem[]) {
  type Group = { session: string; reason: LossReason; ranges: SeqRange[]; items: NonNullable<HeldItem['lost']>[] };
  const groups = new Map<string, Group>();
  fixRanges(marks, batch);
  for (const { session, lost } of batch) {
    if (!lost?.ranges || lost.refused) continue;
    const key = `${lost.reason} ${session}`;
    const group = groups.get(key) ?? { session, reason: lost.reason, ranges: [], items: [] };
    group.ranges.push(...lost.ranges);
    group.items.push(lost);
    groups.set(key, group);
  }
  for (const { session, reason, ranges, items } of groups.values()) {
    if (ranges.length === 0) continue;
    try {
      const recorded = await store.recordLosses(deviceId, session, reason, joined(ranges));
      if (recorded > 0) onLost?.(reason, recorded);
    } catch (error) {
      if (!(error instanceof LossRefusedError)) throw error;
      for (const lost of items) lost.refused = error.message;
      lossRefused.note({ deviceId, session, ranges: ranges.length, reason: error.message });
    }
  }
}

/** Fixes what of each new declared range is left to record: one pass of the marks per session, whatever its ranges. */
function fixRanges(marks: AckMarks, batch: HeldItem[]) {
  const fresh = new Map<string, { seq: number; lost: NonNullable<HeldItem['lost']> }[]>();
  for (const { session, seq, lost } of batch) {
    if (!lost || lost.refused || lost.ranges) continue;
    const items = fresh.get(session) ?? [];
    items.push({ seq, lost });
    fresh.set(session, items);
  }
  for (const [session, items] of fresh) {
    // A refusal is counted as one when it comes: a range declared later in the batch must not count it lost too.
    const left = marks.beyond(
      session,
      items.map(({ seq, lost }) => [seq, lost.through]),
      refusalsOf(batch, session),
    );
    items.forEach(({ lost }, i) => (lost.ranges = left[i]));
  }
}

const refusalsOf = (batch: HeldItem[], session: string) =>
  batch.flatMap((item) => (item.session === session && !item.doc && !item.lost ? [item.seq] : []));

/** `ranges` sorted, overlapping or touching ones joined. */
function joined(ranges: SeqRange[]): SeqRange[] {
  const out: SeqRange[] = [];
  for (const [from, to] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const last = out.at(-1);
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

function logStored({ deviceId, log }: WriterIo, batch: HeldItem[], docs: ReadingDocument[], result: InsertResult) {
  if (!log.isLevelEnabled('debug')) return;
  const resent = new Set(result.duplicates);
  const readings = docs.filter((_, i) => !resent.has(i)).map(({ session, seq, value }) => ({ session, seq, value }));
  const refused = batch.filter((item) => !item.doc && !item.lost).length;
  log.debug(
    { deviceId, inserted: result.inserted, duplicates: result.duplicates.length, refused, readings },
    'readings stored',
  );
}

/** The retry after a failed write: one timer at a time, its delay growing until a write succeeds. */
function createRetryTimer(backoff: { initialMs: number; maxMs: number }, run: () => void) {
  // Jittered, so that sockets that failed together do not all retry in the same instant.
  const delays = createBackoff(backoff);
  let timer: NodeJS.Timeout | undefined;
  return {
    pending: () => timer !== undefined,
    schedule() {
      timer = setTimeout(() => {
        timer = undefined;
        run();
      }, delays.next());
      timer.unref();
    },
    succeeded: () => delays.reset(),
    cancel: () => clearTimeout(timer),
  };
}
