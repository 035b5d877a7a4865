// What one socket's writer holds: the readings (and lost ranges) queued for the next write, and the count and bytes
// of everything received and not yet acknowledged, under a bound per socket and a byte budget shared by all sockets.
// Pure: no I/O, no timers; the writer (reading-writer.ts) does the writing.
import type { LossReason, Reading, SeqRange } from '../../lib/device-protocol.ts';
import type { HeldBudget } from './held-budget.ts';
import { toDocument, type ReadingDocument, type RefusalCode } from '../readings/reading-document.ts';

/** A reading of a frame, or a range the device declared lost. */
export interface HeldItem {
  session: string;
  seq: number;
  /** Undefined: refused, or a lost range. */
  doc: ReadingDocument | undefined;
  bytes: number;
  /**
   * A range declared lost: from `seq` to `through`. `ranges` is what of it is left to record, fixed the first time
   * the batch is written (a retry records the same, whatever the marks say by then). `refused`: why the store
   * would not record it (it then settles nothing).
   */
  lost?: { through: number; reason: LossReason; ranges?: SeqRange[]; refused?: string };
  /** When the writer took it (performance.now()): how long it waits to be written is the device path's lag. */
  at?: number;
}

export interface HeldReadings {
  /** Queues `items`, taken at `at` (ms); the reason (and nothing queued) when that would pass a bound. */
  add(items: HeldItem[], at?: number): string | undefined;
  /** Takes everything queued, as the next write's batch. */
  take(): HeldItem[];
  /** A failed batch goes back to the front, ahead of what arrived meanwhile. */
  putBack(batch: HeldItem[]): void;
  /** A batch is acknowledged: its readings are held no more (those waiting past a gap are counted by `waiting`). */
  release(batch: HeldItem[]): void;
  /** Readings written past a gap changed by `delta`: they are held, as numbers only, until the gap fills. */
  waiting(delta: number): void;
  /** Forgets everything, giving its bytes back to the budget. */
  clear(): void;
  /** When the oldest item queued for a write was taken (a failed batch put back counts from its first take). */
  oldestQueuedAt(): number | undefined;
  readonly held: number;
  readonly queued: number;
}

const bytesOf = (items: HeldItem[]) => items.reduce((sum, item) => sum + item.bytes, 0);

export function createHeldReadings(budget: HeldBudget, heldMax: number): HeldReadings {
  let queue: HeldItem[] = [];
  let held = 0;
  let heldBytes = 0;
  return {
    add(items, at = performance.now()) {
      const bytes = bytesOf(items);
      if (held + items.length > heldMax) return `over ${heldMax} readings held`;
      if (!budget.take(bytes)) return `the readings held for all sockets would pass ${budget.max} bytes`;
      for (const item of items) item.at ??= at;
      queue.push(...items);
      held += items.length;
      heldBytes += bytes;
      return undefined;
    },
    take() {
      const batch = queue;
      queue = [];
      return batch;
    },
    putBack(batch) {
      queue = batch.concat(queue);
    },
    release(batch) {
      const bytes = bytesOf(batch);
      held -= batch.length;
      heldBytes -= bytes;
      budget.give(bytes);
    },
    waiting(delta) {
      held += delta;
    },
    clear() {
      budget.give(heldBytes);
      queue = [];
      held = 0;
      heldBytes = 0;
    },
    oldestQueuedAt: () => queue[0]?.at,
    get held() {
      return held;
    },
    get queued() {
      return queue.length;
    },
  };
}

/** A frame's readings as items: a reading it cannot store as given is held, undocumented, and told to `refused`. */
export function readingItems(
  deviceId: string,
  session: string,
  readings: readonly Reading[],
  receivedAt: Date,
  refused: (seq: number, why: { refused: string; code: RefusalCode }) => void,
): HeldItem[] {
  return readings.map((reading): HeldItem => {
    const checked = toDocument(deviceId, session, reading, receivedAt);
    if ('refused' in checked) refused(reading.seq, checked);
    return { session, seq: reading.seq, doc: 'refused' in checked ? undefined : checked.doc, bytes: checked.bytes };
  });
}

/** A `lost` message's ranges as items; each costs what a small reading does against the bounds. */
export function lostItems(session: string, reason: LossReason, ranges: readonly SeqRange[]): HeldItem[] {
  return ranges.map(([from, to]) => ({ session, seq: from, doc: undefined, bytes: 64, lost: { through: to, reason } }));
}
