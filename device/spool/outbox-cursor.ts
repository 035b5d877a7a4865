// The outbox's blocks and its send cursor, read without state of their own: where the first unsent reading is,
// how many are in flight, and how many readings from a given one fit a frame. Pure, so each is tested alone.

/** One session's readings in one spool segment, in ascending `seq`. */
export interface Block {
  id: number;
  session: string;
  seqs: number[];
  /** Where each reading's JSON starts, and its length. */
  offsets: number[];
  lengths: number[];
  /** Readings before this index are forgotten. */
  head: number;
}

/** The last reading sent on the current socket. */
export interface Cursor {
  block: number;
  index: number;
}

/** Unacknowledged readings in `block`. */
export const live = (b: Block) => b.seqs.length - b.head;

/** Where the first reading after `sent` (or the oldest, with none sent) is, if any. */
export function unsent(
  blocks: readonly Block[],
  sent: Cursor | undefined,
): { block: Block; index: number } | undefined {
  for (const block of blocks) {
    if (sent && block.id < sent.block) continue;
    const index = sent && block.id === sent.block ? Math.max(sent.index + 1, block.head) : block.head;
    if (index < block.seqs.length) return { block, index };
  }
  return undefined;
}

/** Unacknowledged readings sent up to `sent`. */
export function inFlight(blocks: readonly Block[], sent: Cursor | undefined): number {
  if (!sent) return 0;
  let count = 0;
  for (const b of blocks) {
    if (b.id < sent.block) count += live(b);
    else if (b.id === sent.block) count += Math.max(0, Math.min(sent.index + 1, b.seqs.length) - b.head);
  }
  return count;
}

/** How many readings from `index` on go in one frame: within the count, and the bytes (one at least). */
export function frameEnd(block: Block, index: number, maxCount: number, room: number): number {
  let end = index;
  let bytes = 0;
  while (end < block.seqs.length && end - index < maxCount) {
    const add = block.lengths[end]! + (end > index ? 1 : 0); // a comma before each but the first
    if (end > index && bytes + add > room) break;
    bytes += add;
    end += 1;
  }
  return end;
}
