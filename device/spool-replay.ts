// Start-up of the spool: reads every segment a previous process left, oldest first, into the outbox (readings minus
// acknowledgements, per session, in order), skipping what is torn or damaged with one warning.
import type { Logger } from '../lib/logger.ts';
import type { Outbox } from './outbox.ts';
import { decodeRecord } from './spool-record.ts';
import { listSegments, openSegment, type SpoolSegment } from './spool-segment.ts';

/** The segments of `dir` that hold anything, opened for reading; their unacknowledged readings are in `outbox`. */
export function replaySpool(dir: string, outbox: Outbox, log: Logger): SpoolSegment[] {
  const segments: SpoolSegment[] = [];
  let skipped = 0;
  let torn = 0;
  const damaged: string[] = [];
  const lastSeqs = new Map<string, number>();
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
        lastSeqs.set(record.session, record.seq);
        outbox.add(id, record.session, record.seq, offset + record.jsonOffset, record.jsonBytes);
      }
      if (bad > 0) damaged.push(segment.path);
    }
  } catch (error) {
    for (const s of segments) s.close();
    throw error;
  }
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
