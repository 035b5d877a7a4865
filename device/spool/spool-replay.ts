// Start-up of the spool: reads every segment a previous process left, oldest first, into the outbox (readings minus
// acknowledgements, per session, in order), skipping what is torn or damaged with one warning. The numbers an
// earlier session skipped past its last ack go into the loss ledger: before its first kept reading `evicted` (a full
// spool drops the oldest segment), between two kept readings `unwritten` (a write that failed, or a damaged record);
// what `lost` records say is declared with the reason they give (a record's reason wins over a guess). Ack and lost
// records go into the spool's history (spool-history.ts), which writes them again before their segment goes.
import type { Logger } from '../../lib/logger.ts';
import type { LossReason, SeqRange } from '../../lib/device-protocol.ts';
import { addRange, subtractRanges } from '../../lib/seq-ranges.ts';
import type { LossLedger } from './loss-ledger.ts';
import type { SpoolHistory } from './spool-history.ts';
import type { Outbox } from './outbox.ts';
import { decodeRecord } from './spool-record.ts';
import { listSegments, openSegment, type SpoolSegment } from './spool-segment.ts';

/** The segments of `dir` that hold anything, opened for reading; their unacknowledged readings are in `outbox`. */
export function replaySpool(
  dir: string,
  outbox: Outbox,
  log: Logger,
  { losses, history }: { losses?: LossLedger; history?: SpoolHistory } = {},
): SpoolSegment[] {
  const segments: SpoolSegment[] = [];
  let skipped = 0;
  let torn = 0;
  const damaged: string[] = [];
  const lastSeqs = new Map<string, number>();
  const gaps = createGaps();
  try {
    for (const id of listSegments(dir)) {
      const segment = openSegment(dir, id);
      // Left by a process that stopped before its first reading (a crash loop leaves one per start).
      if (segment.bytes === 0) {
        segment.remove();
        continue;
      }
      segments.push(segment);
      const { lines, tornBytes } = segment.lines();
      let bad = tornBytes > 0 ? 1 : 0;
      torn += bad;
      let session: string | undefined;
      for (const { offset, line } of lines) {
        const record = decodeRecord(line);
        if (record?.type === 'ack') {
          outbox.forget(record.session, record.seq);
          gaps.acked(record.session, record.seq);
          history?.wrote(id, record);
          continue;
        }
        if (record?.type === 'lost') {
          gaps.lost(record.session, record.reason, record.ranges);
          history?.wrote(id, record);
          continue;
        }
        // A reading must belong to the segment's one session and come after that session's last one.
        const ok =
          record?.type === 'reading' &&
          (session ?? record.session) === record.session &&
          record.seq > (lastSeqs.get(record.session) ?? 0);
        if (!ok) {
          bad += 1;
          skipped += 1;
          continue;
        }
        session = record.session;
        gaps.read(record.session, record.seq, lastSeqs.get(record.session));
        lastSeqs.set(record.session, record.seq);
        outbox.add(id, record.session, record.seq, offset + record.jsonOffset, record.jsonBytes);
      }
      if (bad > 0) damaged.push(segment.path);
    }
  } catch (error) {
    for (const s of segments) s.close();
    throw error;
  }
  if (losses) gaps.declare(losses);
  if (skipped + torn > 0) {
    const n = skipped + torn;
    log.warn(
      { skipped, torn, files: damaged },
      `spool: skipped ${n} unreadable record${n === 1 ? '' : 's'} ` +
        `(${torn} torn at the end of a segment, as after a crash; ${skipped} damaged)`,
    );
  }
  return segments;
}

/** Per session: the numbers skipped before the first kept reading and between kept readings, the lost records, and
 * the last ack. */
function createGaps() {
  type Gaps = { leading?: SeqRange; inner: SeqRange[]; recorded: Record<LossReason, SeqRange[]>; acked: number };
  const sessions = new Map<string, Gaps>();
  const of = (session: string) =>
    sessions.get(session) ??
    sessions.set(session, { inner: [], recorded: { evicted: [], unwritten: [] }, acked: 0 }).get(session)!;
  const join = (...lists: SeqRange[][]) => lists.flat().reduce<SeqRange[]>((out, r) => addRange(out, r), []);
  return {
    read(session: string, seq: number, last: number | undefined) {
      const gaps = of(session);
      if (last === undefined && seq > 1) gaps.leading = [1, seq - 1];
      else if (last !== undefined && seq > last + 1) gaps.inner.push([last + 1, seq - 1]);
    },
    lost(session: string, reason: LossReason, ranges: SeqRange[]) {
      const gaps = of(session);
      gaps.recorded[reason] = join(gaps.recorded[reason], ranges);
    },
    acked(session: string, seq: number) {
      const gaps = of(session);
      gaps.acked = Math.max(gaps.acked, seq);
    },
    /** What lies past each session's last ack: lost, never to be sent; a number recorded unwritten is not evicted. */
    declare(losses: LossLedger) {
      for (const [session, { leading, inner, recorded, acked }] of sessions) {
        const past = (ranges: SeqRange[]) => subtractRanges(ranges, acked > 0 ? [[1, acked]] : []);
        const unwritten = past(join(inner, recorded.unwritten));
        losses.add(
          session,
          'evicted',
          subtractRanges(past(join(leading ? [leading] : [], recorded.evicted)), unwritten),
        );
        losses.add(session, 'unwritten', unwritten);
      }
    },
  };
}
