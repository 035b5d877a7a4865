// The readings the backend has not acknowledged, as an index in memory: where each one's JSON is kept, which of
// them the current socket has been sent, and the next frame within a byte and count budget. It touches no file:
// the spool (reading-spool.ts) tells it what it wrote and hands it a function that reads those bytes back. The
// cursor's arithmetic is outbox-cursor.ts.
import { readingsFrame, readingsRoom, type SeqRange } from '../../lib/device-protocol.ts';
import { runsOf } from '../../lib/seq-ranges.ts';
import { frameEnd, inFlight, live, unsent, type Block, type Cursor } from './outbox-cursor.ts';

interface OutboxOptions {
  /** The bytes from `start` to `end` of `block` (a spool segment), where `add` said readings are. */
  read(block: number, start: number, end: number): Buffer;
}

/** What a frame may hold. */
export interface FrameLimits {
  /** Named in the frame (the socket's hello names it too). */
  deviceId: string;
  /** The largest frame, in UTF-8 bytes; a reading too large for it still goes, alone. */
  maxBytes: number;
  /** Readings sent and not yet acknowledged at most. */
  inFlightMax: number;
}

/** A `readings` frame ready to send, and what it holds. */
interface Frame {
  text: string;
  /** The unacknowledged readings the frame reports (its own included). */
  backlog: number;
  session: string;
  count: number;
  firstSeq: number;
  lastSeq: number;
}

export interface Outbox {
  /** Unacknowledged readings. */
  readonly size: number;
  /** A reading kept at `offset` (`bytes` long) in `block`: the last block, or a newer one. */
  add(block: number, session: string, seq: number, offset: number, bytes: number): void;
  /** Forgets `session`'s readings up to `seq`: how many, and which of them are in `refused`. */
  forget(session: string, seq: number, refused?: ReadonlySet<number>): { forgotten: number; refused: number[] };
  /** Unacknowledged readings in `block`. */
  live(block: number): number;
  /** Forgets `block` and whatever it holds; returns the unacknowledged readings that went with it. */
  drop(block: number): { session: string; ranges: SeqRange[] } | undefined;
  /** The sessions with unacknowledged readings. */
  sessions(): Set<string>;
  /** The oldest unacknowledged reading. */
  oldest(): { session: string; seq: number } | undefined;
  /** A new socket: nothing is in flight, and sending starts again from the oldest unacknowledged reading. */
  rewind(): void;
  /** Whether `next` has a frame: a reading not yet sent, and room in flight for it. */
  hasNext(limits: FrameLimits): boolean;
  /** The next frame: consecutive unsent readings of one session, as many as the limits allow (one at least). */
  next(limits: FrameLimits): Frame | undefined;
}

export function createOutbox({ read }: OutboxOptions): Outbox {
  let blocks: Block[] = [];
  let size = 0;
  let sent: Cursor | undefined;

  return {
    get size() {
      return size;
    },
    add(id, session, seq, offset, bytes) {
      let block = blocks.at(-1);
      if (!block || block.id < id) {
        block = { id, session, seqs: [], offsets: [], lengths: [], head: 0 };
        blocks.push(block);
      } else if (block.id > id || block.session !== session) {
        throw new Error(
          `outbox: a reading of ${session} in block ${id} does not follow block ${block.id} of ${block.session}`,
        );
      }
      block.seqs.push(seq);
      block.offsets.push(offset);
      block.lengths.push(bytes);
      size += 1;
    },
    forget(session, seq, refused) {
      const before = size;
      const refusedLive: number[] = [];
      for (const b of blocks) {
        if (b.session !== session) continue;
        while (b.head < b.seqs.length && b.seqs[b.head]! <= seq) {
          if (refused?.has(b.seqs[b.head]!)) refusedLive.push(b.seqs[b.head]!);
          b.head += 1;
          size -= 1;
        }
        if (b.head < b.seqs.length) break; // the rest of this session is newer
      }
      return { forgotten: before - size, refused: refusedLive };
    },
    live(id) {
      const block = blocks.find((b) => b.id === id);
      return block ? live(block) : 0;
    },
    drop(id) {
      const block = blocks.find((b) => b.id === id);
      if (!block) return undefined;
      blocks = blocks.filter((b) => b !== block);
      size -= live(block);
      return { session: block.session, ranges: runsOf(block.seqs.slice(block.head)) };
    },
    sessions() {
      return new Set(blocks.filter((b) => live(b) > 0).map((b) => b.session));
    },
    oldest() {
      const b = blocks.find((block) => live(block) > 0);
      return b && { session: b.session, seq: b.seqs[b.head]! };
    },
    rewind() {
      sent = undefined;
    },
    hasNext(limits) {
      return unsent(blocks, sent) !== undefined && inFlight(blocks, sent) < limits.inFlightMax;
    },
    next({ deviceId, maxBytes, inFlightMax }) {
      const at = unsent(blocks, sent);
      const maxCount = inFlightMax - inFlight(blocks, sent);
      if (!at || maxCount < 1) return undefined;
      const { block, index } = at;
      // The backlog rides in the frame, so its digits take from the readings' room.
      const head = { deviceId, session: block.session, backlog: size };
      const end = frameEnd(block, index, maxCount, readingsRoom(head, maxBytes));
      const base = block.offsets[index]!;
      const bytes = read(block.id, base, block.offsets[end - 1]! + block.lengths[end - 1]!);
      const readings: string[] = [];
      for (let k = index; k < end; k++) {
        const start = block.offsets[k]! - base;
        readings.push(bytes.toString('utf8', start, start + block.lengths[k]!));
      }
      sent = { block: block.id, index: end - 1 };
      return {
        text: readingsFrame(head, readings),
        backlog: size,
        session: block.session,
        count: end - index,
        firstSeq: block.seqs[index]!,
        lastSeq: block.seqs[end - 1]!,
      };
    },
  };
}
