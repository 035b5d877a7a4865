// The readings the backend has not acknowledged, kept on disk (spool-segment.ts files of spool-record.ts lines) so
// that neither a lost socket nor a restart loses one: numbered, kept in order, forgotten once acknowledged.
//
// Each process appends to segments of its own (a restart never appends after a possibly torn end), so a segment
// holds one session's readings in ascending order, and acks forget a prefix of them. Memory holds only where each
// unacknowledged reading is (about 24 bytes each); frames are built from the file's bytes.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AckMessage, Reading } from '../lib/device-protocol.ts';
import { ConfigError } from '../lib/config-error.ts';
import type { Logger } from '../lib/logger.ts';
import { createSummedWarning } from '../lib/summed-warning.ts';
import { decodeRecord, encodeAck, encodeReading } from './spool-record.ts';
import { createSegment, listSegments, openSegment, type SpoolSegment } from './spool-segment.ts';

const DEVICE_FILE = 'device';

export interface ReadingSpoolOptions {
  /** DEVICE_SPOOL_DIR: created if missing. */
  dir: string;
  /** This process's session: its readings are numbered from 1. */
  session: string;
  /** DEVICE_ID, remembered in the spool: readings read under another name are not sent under this one unsaid. */
  deviceId: string;
  /** DEVICE_SPOOL_MAX_BYTES: beyond it the oldest segment goes, with its unacknowledged readings. */
  maxBytes: number;
  log: Logger;
  /** A segment is closed and a new one begun past this size (default: a sixteenth of maxBytes, 64 KiB–4 MiB). */
  segmentBytes?: number;
  /** fdatasync at most this often while appending: what a power loss may lose. */
  syncIntervalMs?: number;
  /** Drops and refusals after the first are summed into one warning per interval. */
  warnIntervalMs?: number;
}

/** A position in the spool's order: a reading's segment and index there (what a link has sent up to). */
export interface Cursor {
  segment: number;
  index: number;
}

/** Consecutive unacknowledged readings of one session, as the JSON of a `readings` frame's array contents. */
export interface Batch {
  session: string;
  count: number;
  firstSeq: number;
  lastSeq: number;
  /** The readings' JSON objects joined by commas. */
  json: string;
  /** The position of the last one: pass it to `next` for the batch after. */
  end: Cursor;
}

/** What the liveness body reports as `readings`. */
export interface ReadingStats {
  unacknowledged: number;
  spoolBytes: number;
  /** Unacknowledged readings dropped since start: the oldest when the spool was full, or one it could not write. */
  dropped: number;
}

export interface ReadingSpool {
  readonly session: string;
  /** Numbers a line as this session's next reading and appends it; undefined when it could not be written. */
  push(value: string, timestamp?: Date): Reading | undefined;
  /** Forgets `session`'s readings up to `seq` (refused ones with a summed warning); returns how many. */
  ack(ack: AckMessage): number;
  /** Up to `maxCount` readings after `after` (from the oldest when undefined), all of one session, whose JSON
   * fits `maxBytes(session)` (one at least). */
  next(after: Cursor | undefined, maxCount: number, maxBytes: (session: string) => number): Batch | undefined;
  /** Unacknowledged readings at or before `cursor`: sent and not yet acknowledged. */
  through(cursor: Cursor | undefined): number;
  stats(): ReadingStats;
  readonly size: number;
  /** Changes whenever `stats()` may have. */
  readonly version: number;
  /** Reports pending warnings, syncs and closes the files; the spool keeps what is unacknowledged. */
  close(): void;
}

interface Segment {
  file: SpoolSegment;
  /** The session of its readings (a segment holds one); undefined while it holds none. */
  session: string | undefined;
  seqs: number[];
  /** Where each reading's JSON starts in the file, and its length. */
  offsets: number[];
  lengths: number[];
  /** Readings before this index are forgotten. */
  head: number;
}

const live = (s: Segment) => s.seqs.length - s.head;

export function openReadingSpool(options: ReadingSpoolOptions): ReadingSpool {
  const { dir, session, deviceId, maxBytes, log, syncIntervalMs = 1000, warnIntervalMs = 5000 } = options;
  const segmentBytes = options.segmentBytes ?? Math.min(4 << 20, Math.max(64 << 10, Math.floor(maxBytes / 16)));
  const plural = (n: number) => (n === 1 ? '' : 's');
  const dropWarning = createSummedWarning(
    log,
    (n) => `spool full (${maxBytes} bytes): dropped the ${n} oldest unacknowledged reading${plural(n)}`,
    { intervalMs: warnIntervalMs },
  );
  const writeWarning = createSummedWarning(
    log,
    (n) => `could not write ${n} reading${plural(n)} to the spool: dropped`,
    { intervalMs: warnIntervalMs },
  );
  const refusedWarning = createSummedWarning(log, (n) => `the backend refused ${n} reading${plural(n)}: dropped`, {
    intervalMs: warnIntervalMs,
  });

  const segments: Segment[] = [];
  let active: Segment;
  let size = 0;
  let spoolBytes = 0;
  let dropped = 0;
  let lastSeq = 0;
  let version = 0;
  let closed = false;
  let syncTimer: NodeJS.Timeout | undefined;

  /** Forgets `forSession`'s readings up to `seq`; returns the refused ones among them. */
  function forget(forSession: string, seq: number, refused?: Set<number>): number[] {
    const refusedLive: number[] = [];
    for (const s of segments) {
      if (s.session !== forSession) continue;
      while (s.head < s.seqs.length && s.seqs[s.head]! <= seq) {
        if (refused?.has(s.seqs[s.head]!)) refusedLive.push(s.seqs[s.head]!);
        s.head += 1;
        size -= 1;
      }
      if (s.head < s.seqs.length) break; // the rest of this session is newer
    }
    return refusedLive;
  }

  /** Deletes the oldest segments once nothing in them is unacknowledged (never one whose acks an older needs). */
  function compact() {
    while (segments.length > 1 && segments[0] !== active && live(segments[0]!) === 0) removeOldest();
  }

  function removeOldest() {
    const oldest = segments.shift()!;
    spoolBytes -= oldest.file.bytes;
    size -= live(oldest);
    oldest.file.remove();
  }

  function roll() {
    active.file.sync();
    const next = newSegment(createSegment(dir, active.file.id + 1));
    segments.push(next);
    active = next;
    compact();
  }

  /** Makes room for `bytes` more: a full spool gives up its oldest segment, unacknowledged readings and all. */
  function makeRoom(bytes: number) {
    if (active.file.bytes > 0 && active.file.bytes + bytes > segmentBytes) roll();
    while (spoolBytes + bytes > maxBytes) {
      if (segments[0] === active) {
        if (active.file.bytes === 0) return; // nothing left to give up (a record over maxBytes)
        roll();
        continue;
      }
      const lost = live(segments[0]!);
      removeOldest();
      if (lost > 0) {
        dropped += lost;
        dropWarning.note({ droppedTotal: dropped, oldestKeptSeq: firstLive()?.seq }, lost);
      }
    }
  }

  function append(line: Buffer): number {
    makeRoom(line.length);
    const offset = active.file.append(line);
    spoolBytes += line.length;
    version += 1;
    if (!syncTimer) {
      syncTimer = setTimeout(function syncSpool() {
        syncTimer = undefined;
        try {
          active.file.sync();
        } catch (error) {
          log.warn({ err: (error as Error).message, dir }, 'could not sync the spool');
        }
      }, syncIntervalMs).unref();
    }
    return offset;
  }

  function firstLive(): { session: string; seq: number } | undefined {
    const s = segments.find((segment) => live(segment) > 0);
    return s && { session: s.session!, seq: s.seqs[s.head]! };
  }

  // Start-up: the previous sessions' unacknowledged readings, then a segment of this session's own.
  try {
    mkdirSync(dir, { recursive: true });
    replay();
    rememberDevice();
    active = newSegment(createSegment(dir, (segments.at(-1)?.file.id ?? 0) + 1));
    segments.push(active);
    compact();
  } catch (error) {
    for (const s of segments) s.file.close();
    // A file system's refusal is a setting to fix (one line, exit 1); anything else is a bug and keeps its stack.
    if (!(error as NodeJS.ErrnoException).code) throw error;
    const { message } = error as Error;
    throw new ConfigError(
      `DEVICE_SPOOL_DIR=${dir} cannot be used: ${message} (it must be a directory this user can write)`,
      { cause: error },
    );
  }

  function replay() {
    let skipped = 0;
    let torn = 0;
    const files: string[] = [];
    const lastSeqs = new Map<string, number>();
    for (const id of listSegments(dir)) {
      const segment = newSegment(openSegment(dir, id));
      // Left by a process that stopped before its first reading (a crash loop leaves one per start).
      if (segment.file.bytes === 0) {
        segment.file.remove();
        continue;
      }
      segments.push(segment);
      spoolBytes += segment.file.bytes;
      const { lines, tornBytes } = segment.file.lines();
      let bad = tornBytes > 0 ? 1 : 0;
      torn += bad;
      for (const { offset, line } of lines) {
        const record = decodeRecord(line);
        if (record?.type === 'ack') {
          forget(record.session, record.seq);
          continue;
        }
        // A reading must belong to the segment's one session and come after that session's last one.
        const ok =
          record?.type === 'reading' &&
          (segment.session ?? record.session) === record.session &&
          record.seq > (lastSeqs.get(record.session) ?? 0);
        if (!ok) {
          bad += 1;
          skipped += 1;
          continue;
        }
        segment.session = record.session;
        lastSeqs.set(record.session, record.seq);
        segment.seqs.push(record.seq);
        segment.offsets.push(offset + record.jsonOffset);
        segment.lengths.push(record.jsonBytes);
        size += 1;
      }
      if (bad > 0) files.push(segment.file.path);
    }
    if (skipped + torn > 0) {
      log.warn(
        { skipped, torn, files },
        `spool: skipped ${skipped + torn} unreadable record${plural(skipped + torn)} ` +
          `(${torn} torn at the end of a segment, as after a crash; ${skipped} damaged)`,
      );
    }
  }

  /**
   * The spool's `device` file names the DEVICE_ID its readings were read under. Readings carry no device of their own
   * (the socket's hello names it), so after a change of DEVICE_ID what is left unacknowledged goes out under the new
   * name: said once, with both names. Replaced through a rename, so a crash leaves the old name or the new.
   */
  function rememberDevice() {
    const file = join(dir, DEVICE_FILE);
    let was: string | undefined;
    try {
      was = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (was === deviceId) return;
    if (was !== undefined && size > 0) {
      log.warn(
        { was, now: deviceId, unacknowledged: size },
        `spool: ${size} unacknowledged reading${plural(size)} read as device ${JSON.stringify(was)} ` +
          `will be sent as ${JSON.stringify(deviceId)} (DEVICE_ID changed)`,
      );
    }
    writeFileSync(`${file}.new`, deviceId);
    renameSync(`${file}.new`, file);
  }

  function newSegment(file: SpoolSegment): Segment {
    return { file, session: undefined, seqs: [], offsets: [], lengths: [], head: 0 };
  }

  return {
    session,
    push(value, timestamp = new Date()) {
      if (closed) return undefined;
      lastSeq += 1;
      const reading: Reading = { seq: lastSeq, timestamp: timestamp.toISOString(), value };
      const { line, jsonOffset, jsonBytes } = encodeReading(session, reading);
      let offset: number;
      try {
        offset = append(line);
      } catch (error) {
        dropped += 1;
        version += 1;
        writeWarning.note({ err: (error as Error).message, dir, seq: reading.seq, droppedTotal: dropped });
        return undefined;
      }
      active.session = session;
      active.seqs.push(reading.seq);
      active.offsets.push(offset + jsonOffset);
      active.lengths.push(jsonBytes);
      size += 1;
      return reading;
    },
    ack({ session: ackSession, seq, refused }) {
      if (closed) return 0;
      const before = size;
      const refusedLive = forget(ackSession, seq, refused && new Set(refused));
      const forgotten = before - size;
      if (forgotten === 0) return 0;
      compact();
      version += 1;
      if (refusedLive.length > 0) {
        refusedWarning.note({ session: ackSession, seqs: refusedLive.slice(0, 20) }, refusedLive.length);
      }
      try {
        append(encodeAck(ackSession, seq));
      } catch (error) {
        // Only a restart would notice the missing record: it resends these, and the backend ignores them.
        log.warn({ err: (error as Error).message, dir }, 'could not write an acknowledgement to the spool');
      }
      return forgotten;
    },
    next(after, maxCount, maxBytes) {
      if (closed) return undefined;
      let i = 0;
      let index = 0;
      for (; i < segments.length; i++) {
        const s = segments[i]!;
        if (after && s.file.id < after.segment) continue;
        index = after && s.file.id === after.segment ? Math.max(after.index + 1, s.head) : s.head;
        if (index < s.seqs.length) break;
      }
      const s = segments[i];
      if (!s || maxCount < 1) return undefined;
      const budget = maxBytes(s.session!);
      let end = index;
      let bytes = 0;
      while (end < s.seqs.length && end - index < maxCount) {
        const add = s.lengths[end]! + (end > index ? 1 : 0);
        if (end > index && bytes + add > budget) break;
        bytes += add;
        end += 1;
      }
      const base = s.offsets[index]!;
      const buffer = s.file.read(base, s.offsets[end - 1]! + s.lengths[end - 1]!);
      const parts: string[] = [];
      for (let k = index; k < end; k++) {
        parts.push(buffer.toString('utf8', s.offsets[k]! - base, s.offsets[k]! - base + s.lengths[k]!));
      }
      return {
        session: s.session!,
        count: end - index,
        firstSeq: s.seqs[index]!,
        lastSeq: s.seqs[end - 1]!,
        json: parts.join(','),
        end: { segment: s.file.id, index: end - 1 },
      };
    },
    through(cursor) {
      if (!cursor) return 0;
      let count = 0;
      for (const s of segments) {
        if (s.file.id < cursor.segment) count += live(s);
        else if (s.file.id === cursor.segment) count += Math.max(0, Math.min(cursor.index + 1, s.seqs.length) - s.head);
      }
      return count;
    },
    stats: () => ({ unacknowledged: size, spoolBytes, dropped }),
    get size() {
      return size;
    },
    get version() {
      return version;
    },
    close() {
      if (closed) return;
      closed = true;
      clearTimeout(syncTimer);
      dropWarning.flush();
      writeWarning.flush();
      refusedWarning.flush();
      try {
        active.file.sync();
      } finally {
        for (const s of segments) s.file.close();
      }
    },
  };
}
