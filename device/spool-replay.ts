// Start-up of the spool: reads every segment a previous process left, oldest first, into the outbox (readings minus
// acknowledgements, per session, in order), skipping what is torn or damaged with one warning. The numbers an
// earlier session skipped past its last ack go into the loss ledger: before its first kept reading `evicted` (a full
// spool drops the oldest segment), between two kept readings `unwritten` (a write that failed, or a damaged record).
import type { Logger } from '../lib/logger.ts';
import type { SeqRange } from '../lib/device-protocol.ts';
import { subtractRanges } from '../lib/seq-ranges.ts';
import type { LossLedger } from './loss-ledger.ts';
import type { Outbox } from './outbox.ts';
import { decodeRecord } from './spool-record.ts';
import { listSegments, openSegment, type SpoolSegment } from './spool-segment.ts';

/** The segments of `dir` that hold anything, opened for reading; their unacknowledged readings are in `outbox`. */
export function replaySpool(dir: string, outbox: Outbox, log: Logger, losses?: LossLedger): SpoolSegment[] {
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

/** Per session: the numbers skipped before the first kept reading and between kept readings, and the last ack. */
function createGaps() {
  const sessions = new Map<string, { leading?: SeqRange; inner: SeqRange[]; acked: number }>();
  const of = (session: string) => sessions.get(session) ?? sessions.set(session, { inner: [], acked: 0 }).get(session)!;
  return {
    read(session: string, seq: number, last: number | undefined) {
      const gaps = of(session);
      if (last === undefined && seq > 1) gaps.leading = [1, seq - 1];
      else if (last !== undefined && seq > last + 1) gaps.inner.push([last + 1, seq - 1]);
    },
    acked(session: string, seq: number) {
      const gaps = of(session);
      gaps.acked = Math.max(gaps.acked, seq);
    },
    /** What lies past each session's last ack: lost, never to be sent. */
    declare(losses: LossLedger) {
      for (const [session, { leading, inner, acked }] of sessions) {
        const past = (ranges: SeqRange[]) => subtractRanges(ranges, acked > 0 ? [[1, acked]] : []);
        losses.add(session, 'evicted', past(leading ? [leading] : []));
        losses.add(session, 'unwritten', past(inner));
      }
    },
  };
}
