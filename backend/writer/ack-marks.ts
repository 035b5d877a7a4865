// One socket's acknowledgement marks: per session, the seq up to which every reading is known stored (or refused),
// so that an ack never speaks for a reading the backend does not hold.
//
// A mark moves only over contiguous readings: a written batch extends it while its readings (and those written
// earlier past a gap) follow on from it, seq by seq. Readings past a gap are stored but wait, as numbers only, until
// the gap is filled; readings at or below the mark (a resend, a frame that goes back) change nothing. A range the
// device declared lost fills a gap like the readings it stands for: the mark jumps to its end.
import type { AckMessage, SeqRange } from '../../lib/device-protocol.ts';
import { runsOf, subtractRanges } from '../../lib/seq-ranges.ts';

/** A reading of a written batch: `refused` when the backend would not store it as given. */
export interface Settled {
  session: string;
  seq: number;
  refused: boolean;
  /** Set for a range the device declared lost (never `refused`): it runs from `seq` to this. */
  lostThrough?: number;
}

export interface AckMarks {
  /** The session's mark on this socket, or undefined until `start` gave it one. */
  through(session: string): number | undefined;
  /** Sets where a session starts on this socket: every reading of it up to `through` is stored or was refused. */
  start(session: string, through: number): void;
  /** Takes a written batch; one ack per session whose mark is past 0, in the order the sessions first appear. */
  settle(batch: readonly Settled[]): AckMessage[];
  /** Readings written past a gap, waiting for it to fill. */
  waiting(): number;
  /**
   * What of each of `ranges` lies past the session's mark and is neither `refused` (a batch's refusals, not yet
   * settled) nor a refusal waiting past a gap: at or below the mark every reading is stored, refused or recorded lost
   * already, and a refused reading is not lost, so a declared range counts none of those as lost. One list per range,
   * in one pass over what waits, however many ranges: a 1,000-range message costs a search per range, not a walk.
   */
  beyond(session: string, ranges: readonly SeqRange[], refused?: readonly number[]): SeqRange[][];
}

interface Mark {
  through: number;
  /** Written past the gap: first seq → whether refused, and the last seq it settles (a lost range's end). */
  ahead: Map<number, { refused: boolean; end: number }>;
}

export function createAckMarks(): AckMarks {
  const marks = new Map<string, Mark>();
  let waiting = 0;

  return {
    through: (session) => marks.get(session)?.through,
    start(session, through) {
      if (!marks.has(session)) marks.set(session, { through, ahead: new Map() });
    },
    settle(batch) {
      const refusedBy = new Map<string, number[]>();
      for (const { session, seq: first, refused, lostThrough } of batch) {
        const mark = marks.get(session) ?? { through: 0, ahead: new Map() };
        marks.set(session, mark);
        if (!refusedBy.has(session)) refusedBy.set(session, []);
        const end = lostThrough ?? first;
        // A lost range that began at or below the mark still settles what lies past it.
        const seq = lostThrough === undefined ? first : Math.max(first, mark.through + 1);
        // At or below the mark it was settled before; a refusal is still named, so the ack is true of the frame.
        if (seq > end || seq <= mark.through) {
          if (refused) refusedBy.get(session)!.push(seq);
          continue;
        }
        const known = mark.ahead.get(seq);
        if (!known) waiting += 1;
        if (!known || known.end < end) mark.ahead.set(seq, { refused, end });
      }
      const acks: AckMessage[] = [];
      for (const [session, refused] of refusedBy) {
        const mark = marks.get(session)!;
        for (let next = mark.through + 1; mark.ahead.has(next); next = mark.through + 1) {
          const { refused: wasRefused, end } = mark.ahead.get(next)!;
          if (wasRefused) refused.push(next);
          mark.ahead.delete(next);
          waiting -= 1;
          mark.through = end;
          if (end > next) waiting -= overtaken(mark);
        }
        if (mark.through === 0) continue;
        refused.sort((a, b) => a - b);
        acks.push(
          refused.length > 0
            ? { type: 'ack', session, seq: mark.through, refused }
            : { type: 'ack', session, seq: mark.through },
        );
      }
      return acks;
    },
    waiting: () => waiting,
    beyond(session, ranges, refused = []) {
      const mark = marks.get(session);
      const floor = (mark?.through ?? 0) + 1;
      const waitingRefused = [...(mark?.ahead ?? [])].flatMap(([seq, entry]) => (entry.refused ? [seq] : []));
      const settled = runsOf([...new Set([...waitingRefused, ...refused])].sort((a, b) => a - b));
      return ranges.map(([from, to]) => {
        const start = Math.max(from, floor);
        return start > to ? [] : subtractRanges([[start, to]], runsWithin(settled, start, to));
      });
    },
  };
}

/**
 * After a lost range moved the mark: forgets what waited under it; one that reaches past it resumes after it, joined
 * to what waits there (the longer of the two reaches furthest).
 */
function overtaken(mark: Mark): number {
  let gone = 0;
  for (const [seq, entry] of mark.ahead) {
    if (seq > mark.through) continue;
    mark.ahead.delete(seq);
    gone += 1;
    if (entry.end <= mark.through) continue;
    const after = mark.ahead.get(mark.through + 1);
    if (after) after.end = Math.max(after.end, entry.end);
    else {
      mark.ahead.set(mark.through + 1, { refused: false, end: entry.end });
      gone -= 1;
    }
  }
  return gone;
}

/** The runs of `runs` (sorted, disjoint) that reach into `[from, to]`: found by a binary search, not a walk. */
function runsWithin(runs: readonly SeqRange[], from: number, to: number): SeqRange[] {
  let low = 0;
  let high = runs.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (runs[middle]![1] < from) low = middle + 1;
    else high = middle;
  }
  let end = low;
  while (end < runs.length && runs[end]![0] <= to) end += 1;
  return runs.slice(low, end);
}
