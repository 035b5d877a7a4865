// The bounded queue of readings the backend has not acknowledged yet: numbered, kept in order, resent on reconnect.
import type { ReadingMessage } from '../lib/device-protocol.ts';
import type { Logger } from '../lib/logger.ts';

export interface ReadingQueue {
  /** Numbers a line as the next reading of this session and queues it; returns the message to send. */
  push(value: string, timestamp?: Date): ReadingMessage;
  /** The backend has stored everything up to `seq`: forget those. Returns how many were removed. */
  ack(seq: number): number;
  /** Unacknowledged readings, oldest first. */
  pending(): ReadingMessage[];
  /** Up to `max` unacknowledged readings numbered above `seq`, oldest first (O(max), not O(size)). */
  after(seq: number, max: number): ReadingMessage[];
  readonly size: number;
  /** Readings dropped because the queue was full, since start. */
  readonly dropped: number;
  /** Reports drops not yet warned about (on shutdown) and stops the warning timer. */
  flush(): void;
}

export interface ReadingQueueOptions {
  deviceId: string;
  session: string;
  log: Logger;
  /** Readings kept while the backend is away (10 000 is about 2¾ hours at one reading a second). */
  limit?: number;
  /** Drops after the first are summed into one warning per interval instead of one line per reading. */
  warnIntervalMs?: number;
}

export function createReadingQueue({
  deviceId,
  session,
  log,
  limit = 10_000,
  warnIntervalMs = 5000,
}: ReadingQueueOptions): ReadingQueue {
  // A plain array with a moving head: acks remove from the front without shifting the whole array each time.
  let items: ReadingMessage[] = [];
  let head = 0;
  let lastSeq = 0;
  let dropped = 0;
  let unreported = 0;
  let warnTimer: NodeJS.Timeout | undefined;

  const size = () => items.length - head;
  const compact = () => {
    if (head > 1024 && head * 2 > items.length) {
      items = items.slice(head);
      head = 0;
    }
  };

  function report() {
    if (unreported === 0) return;
    log.warn(
      { dropped: unreported, droppedTotal: dropped, limit, oldestKeptSeq: items[head]?.seq },
      `reading queue full (${limit}): ` +
        `dropped the ${unreported} oldest unacknowledged reading${unreported === 1 ? '' : 's'}`,
    );
    unreported = 0;
  }

  function noteDrop() {
    dropped += 1;
    unreported += 1;
    if (warnTimer) return;
    report();
    const tick = () => {
      warnTimer = undefined;
      if (unreported === 0) return;
      report();
      warnTimer = setTimeout(tick, warnIntervalMs).unref();
    };
    warnTimer = setTimeout(tick, warnIntervalMs).unref();
  }

  return {
    push(value, timestamp = new Date()) {
      lastSeq += 1;
      const reading: ReadingMessage = {
        type: 'reading',
        deviceId,
        session,
        seq: lastSeq,
        timestamp: timestamp.toISOString(),
        value,
      };
      items.push(reading);
      if (size() > limit) {
        head += 1;
        noteDrop();
        compact();
      }
      return reading;
    },
    ack(seq) {
      const before = size();
      while (head < items.length && items[head]!.seq <= seq) head += 1;
      if (head === items.length) {
        items = [];
        head = 0;
      } else {
        compact();
      }
      return before - size();
    },
    pending: () => items.slice(head),
    after(seq, max) {
      // Queued sequence numbers are consecutive, so the position of `seq + 1` is arithmetic.
      const first = items[head];
      if (!first) return [];
      const start = head + Math.max(0, seq + 1 - first.seq);
      return items.slice(start, start + Math.max(0, max));
    },
    get size() {
      return size();
    },
    get dropped() {
      return dropped;
    },
    flush() {
      clearTimeout(warnTimer);
      warnTimer = undefined;
      report();
    },
  };
}
