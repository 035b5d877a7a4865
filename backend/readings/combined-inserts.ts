// Batches that wait for a serialization turn together are written together: when the turn comes, the batches
// waiting then (in the order they came, up to a bound on their readings) go into one insert and one summary write,
// and each caller gets its own result back. With 500 devices streaming, each with one batch in flight
// (device-lanes.ts), that is a few writes a round instead of 500 inserts and 500 summary writes, each of which had
// to wait for a turn of its own. A write that fails fails every batch in it, with the same error: each writer puts
// its batch back and retries as after a failure of its own (the summary write is kept and sent again, so nothing is
// counted twice: summary-writes.ts).
import { DEVICE_UNACKED_IN_FLIGHT } from '../../lib/device-protocol.ts';

/** What a write of readings gives (reading-store.ts names it for its callers). */
export interface InsertResult {
  inserted: number;
  /** Positions (in the batch) of readings that were stored before: a resend. */
  duplicates: number[];
}

export interface CombinedInserts<T> {
  /** Resolves with `docs`' own result (positions into `docs`) once written; rejects as the write they went in. */
  insert(docs: T[]): Promise<InsertResult>;
}

export interface CombinedInsertsOptions<T> {
  /** Resolves when a write may start (one per event-loop turn: lib/turn-budget.ts). */
  turn: () => Promise<void>;
  /** Writes `docs` at once; a result's duplicates are positions into `docs`, every other reading is stored. */
  write: (docs: T[]) => Promise<InsertResult>;
  /**
   * The most readings a write takes from batches that wait behind the first (which goes whole, however large).
   * By default the unacknowledged window, the largest batch one device has in flight anyway: one turn's
   * serialization is then never heavier than a single device could make it.
   */
  maxReadings?: number;
}

interface Waiting<T> {
  docs: T[];
  resolve: (result: InsertResult) => void;
  reject: (error: unknown) => void;
}

export function createCombinedInserts<T>({
  turn,
  write,
  maxReadings = DEVICE_UNACKED_IN_FLIGHT,
}: CombinedInsertsOptions<T>): CombinedInserts<T> {
  const waiting: Waiting<T>[] = [];
  // One turn asked for at a time, for the batch at the front: those queued behind it join it when it comes.
  let asking = false;

  function askTurn() {
    if (asking || waiting.length === 0) return;
    asking = true;
    void turn().then(function turnCame() {
      asking = false;
      const taken = takeFront(waiting, maxReadings);
      askTurn(); // what is left waits for a turn of its own, while this write is in flight
      void writeTogether(taken, write);
    });
  }

  return {
    insert(docs) {
      const written = new Promise<InsertResult>((resolve, reject) => waiting.push({ docs, resolve, reject }));
      askTurn();
      return written;
    },
  };
}

/** Removes from `waiting` the first batch and those after it, in order, while their readings stay within `max`. */
function takeFront<T>(waiting: Waiting<T>[], max: number): Waiting<T>[] {
  let count = waiting[0]!.docs.length;
  let taken = 1;
  while (taken < waiting.length && count + waiting[taken]!.docs.length <= max) {
    count += waiting[taken]!.docs.length;
    taken += 1;
  }
  return waiting.splice(0, taken);
}

async function writeTogether<T>(taken: Waiting<T>[], write: (docs: T[]) => Promise<InsertResult>) {
  try {
    if (taken.length === 1) return taken[0]!.resolve(await write(taken[0]!.docs));
    const results = splitResult(
      await write(taken.flatMap((batch) => batch.docs)),
      taken.map((batch) => batch.docs.length),
    );
    taken.forEach((batch, i) => batch.resolve(results[i]!));
  } catch (error) {
    for (const batch of taken) batch.reject(error);
  }
}

/**
 * The result of one write of batches of `lengths` readings, laid end to end, as each batch's own: its duplicates
 * as positions into it, and the rest of it stored (a write with any other failure throws instead).
 */
export function splitResult({ duplicates }: InsertResult, lengths: readonly number[]): InsertResult[] {
  const starts: number[] = [];
  let end = 0;
  for (const length of lengths) {
    starts.push(end);
    end += length;
  }
  const own: number[][] = lengths.map(() => []);
  for (const position of duplicates) {
    const batch = lastAtOrBelow(starts, position);
    own[batch]!.push(position - starts[batch]!);
  }
  return lengths.map((length, i) => ({ inserted: length - own[i]!.length, duplicates: own[i]! }));
}

/** The index of the last of the ascending `starts` at or below `position` (the batch holding it). */
function lastAtOrBelow(starts: readonly number[], position: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (starts[middle]! <= position) low = middle;
    else high = middle - 1;
  }
  return low;
}
