// One socket's acknowledgement marks: per session, the seq up to which every reading is known stored (or refused),
// so that an ack never speaks for a reading the backend does not hold.
//
// A mark moves only over contiguous readings: a written batch extends it while its readings (and those written
// earlier past a gap) follow on from it, seq by seq. Readings past a gap are stored but wait, as numbers only, until
// the gap is filled; readings at or below the mark (a resend, a frame that goes back) change nothing.
import type { AckMessage } from '../lib/device-protocol.ts';

/** A reading of a written batch: `refused` when the backend would not store it as given. */
export interface Settled {
  session: string;
  seq: number;
  refused: boolean;
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
}

interface Mark {
  through: number;
  /** Written past the gap: seq → refused. */
  ahead: Map<number, boolean>;
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
      for (const { session, seq, refused } of batch) {
        const mark = marks.get(session) ?? { through: 0, ahead: new Map() };
        marks.set(session, mark);
        if (!refusedBy.has(session)) refusedBy.set(session, []);
        // At or below the mark it was settled before; a refusal is still named, so the ack is true of the frame.
        if (seq <= mark.through) {
          if (refused) refusedBy.get(session)!.push(seq);
        } else if (!mark.ahead.has(seq)) {
          mark.ahead.set(seq, refused);
          waiting += 1;
        }
      }
      const acks: AckMessage[] = [];
      for (const [session, refused] of refusedBy) {
        const mark = marks.get(session)!;
        for (let next = mark.through + 1; mark.ahead.has(next); next += 1) {
          if (mark.ahead.get(next)) refused.push(next);
          mark.ahead.delete(next);
          waiting -= 1;
          mark.through = next;
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
  };
}
