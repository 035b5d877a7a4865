// What the spool's ack and lost records say, and where they are: so that a segment holding them is never removed
// without writing them again first (else a restart would declare lost what was acknowledged), and so that readings
// never written at the end of a session get a lost record (no later reading shows their gap). Pure: the spool
// writes the records it asks for.
import type { LossReason, SeqRange } from '../../lib/device-protocol.ts';
import { addRange } from '../../lib/seq-ranges.ts';
import type { LossDeclaration } from './loss-ledger.ts';

/** An ack or lost record to write (spool-record.ts encodes it). */
export type HistoryRecord =
  | { type: 'ack'; session: string; seq: number }
  | { type: 'lost'; session: string; reason: LossReason; ranges: SeqRange[] };

export interface SpoolHistory {
  /** `record` is in `segment` (written now, or found by the replay). */
  wrote(segment: number, record: HistoryRecord): void;
  /** The acknowledged mark of `session`: every reading up to it is stored or refused. */
  mark(session: string): number;
  /** `seq` of `session` could not be written; nothing on disk shows it until a later reading of `session` is. */
  unwritten(session: string, seq: number): void;
  /** A reading of `session` is on disk: the replay finds the gaps before it, as between two readings. */
  written(session: string): void;
  /** The lost records of readings nothing on disk shows yet (written before an ack record, and at close). */
  unrecorded(): HistoryRecord[];
  /**
   * `segment` is about to go: the records to write again first, for each session that still has readings
   * (`live`) or losses (`pending`) to tell; none when the segment holds no ack or lost record.
   */
  carry(segment: number, live: Iterable<string>, pending: readonly LossDeclaration[]): HistoryRecord[];
  /** `segment` is gone. */
  removed(segment: number): void;
}

export function createSpoolHistory(): SpoolHistory {
  const marks = new Map<string, number>();
  const holding = new Set<number>();
  const unshown = new Map<string, SeqRange[]>();
  const mark = (session: string) => marks.get(session) ?? 0;

  return {
    wrote(segment, record) {
      holding.add(segment);
      if (record.type === 'ack') marks.set(record.session, Math.max(mark(record.session), record.seq));
      else if (record.reason === 'unwritten') unshown.delete(record.session);
    },
    mark,
    unwritten(session, seq) {
      unshown.set(session, addRange(unshown.get(session) ?? [], [seq, seq]));
    },
    written(session) {
      unshown.delete(session);
    },
    unrecorded() {
      return [...unshown].map(([session, ranges]) => ({ type: 'lost', session, reason: 'unwritten', ranges }));
    },
    carry(segment, live, pending) {
      if (!holding.has(segment)) return [];
      const sessions = new Set([...live, ...pending.map((p) => p.session)]);
      const out: HistoryRecord[] = [];
      for (const session of sessions) {
        if (mark(session) > 0) out.push({ type: 'ack', session, seq: mark(session) });
        for (const { reason, ranges } of pending.filter((p) => p.session === session)) {
          out.push({ type: 'lost', session, reason, ranges: [...ranges] });
        }
      }
      return out;
    },
    removed(segment) {
      holding.delete(segment);
    },
  };
}
