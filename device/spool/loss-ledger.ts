// The readings the device numbered but will never send (evicted from the full spool, or never written), per session
// and reason, until an ack passes them: what each socket declares in `lost` messages (lib/device-protocol.ts) so that
// the backend acknowledges past the gap. Pure: the spool tells it what it lost and what was acknowledged.
import { LOST_RANGES_MAX, type LossReason, type SeqRange } from '../../lib/device-protocol.ts';
import { addRange, rangesSize } from '../../lib/seq-ranges.ts';

/** One `lost` message's worth: ranges of one session, for one reason. */
export interface LossDeclaration {
  session: string;
  reason: LossReason;
  ranges: SeqRange[];
}

export interface LossLedger {
  /** Sequence numbers declared and not yet acknowledged past. */
  readonly size: number;
  /** `ranges` of `session` are lost for `reason`; they go (again) in the next declarations. */
  add(session: string, reason: LossReason, ranges: readonly SeqRange[]): void;
  /** The backend acknowledged `session` up to `seq`: what lies at or below it needs no declaring any more. */
  forget(session: string, seq: number): void;
  /** A new socket: everything pending is declared again. */
  rewind(): void;
  /** Every declaration not yet acknowledged past, sent or not (what the spool writes again when it moves them). */
  pending(): LossDeclaration[];
  /** The declarations this socket has not been sent, at most LOST_RANGES_MAX ranges each; they count as sent. */
  unsent(): LossDeclaration[];
}

interface Entry extends LossDeclaration {
  sent: boolean;
}

export function createLossLedger(): LossLedger {
  const entries = new Map<string, Entry>();
  const key = (session: string, reason: LossReason) => `${reason} ${session}`;

  return {
    get size() {
      let size = 0;
      for (const entry of entries.values()) size += rangesSize(entry.ranges);
      return size;
    },
    add(session, reason, ranges) {
      if (ranges.length === 0) return;
      const entry = entries.get(key(session, reason)) ?? { session, reason, ranges: [], sent: false };
      for (const range of ranges) entry.ranges = addRange(entry.ranges, range);
      entry.sent = false;
      entries.set(key(session, reason), entry);
    },
    forget(session, seq) {
      for (const [k, entry] of entries) {
        if (entry.session !== session) continue;
        entry.ranges = entry.ranges.flatMap(([from, to]): SeqRange[] =>
          to <= seq ? [] : [[Math.max(from, seq + 1), to]],
        );
        if (entry.ranges.length === 0) entries.delete(k);
      }
    },
    pending() {
      return [...entries.values()].map(({ session, reason, ranges }) => ({ session, reason, ranges: [...ranges] }));
    },
    rewind() {
      for (const entry of entries.values()) entry.sent = false;
    },
    unsent() {
      const out: LossDeclaration[] = [];
      for (const entry of entries.values()) {
        if (entry.sent) continue;
        entry.sent = true;
        for (let i = 0; i < entry.ranges.length; i += LOST_RANGES_MAX) {
          out.push({
            session: entry.session,
            reason: entry.reason,
            ranges: entry.ranges.slice(i, i + LOST_RANGES_MAX),
          });
        }
      }
      return out;
    },
  };
}
