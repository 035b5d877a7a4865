// The readings the backend has not acknowledged, kept on disk (spool-segment.ts files of spool-record.ts lines) so
// that neither a lost socket nor a restart loses one: numbered, kept in order, forgotten once acknowledged. This is
// the file side; which readings are unacknowledged, and the frames they go in, is the outbox's (outbox.ts).
//
// Each process appends to segments of its own (a restart never appends after a possibly torn end), so a segment
// holds one session's readings in ascending order, and acks forget a prefix of them. Memory holds only where each
// unacknowledged reading is (about 24 bytes each); frames are built from the file's bytes.
//
// Every number the spool gives a reading ends stored or declared lost: a reading it could not write, or one a full
// spool evicted, goes into the loss ledger (loss-ledger.ts) with its reason until an ack passes it. After a restart
// the gaps of earlier sessions are found again by the replay (spool-replay.ts).
import { makeDirectory } from './make-directory.ts';
import type { AckMessage, Reading } from '../lib/device-protocol.ts';
import { rangesSize } from '../lib/seq-ranges.ts';
import { createLossLedger, type LossLedger } from './loss-ledger.ts';
import { ConfigError } from '../lib/config-error.ts';
import type { Logger } from '../lib/logger.ts';
import { createSummedWarning } from '../lib/summed-warning.ts';
import { createOutbox, type Outbox } from './outbox.ts';
import { rememberDeviceId } from './spool-device-id.ts';
import { lockSpool, type SpoolLock } from './spool-lock.ts';
import { replaySpool } from './spool-replay.ts';
import { encodeAck, encodeReadingRecord } from './spool-record.ts';
import { createSegment, type SpoolSegment } from './spool-segment.ts';

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
  /** `unwritable` while a record cannot be written (the device's readiness says so), `writable` once one is. */
  /** The spool's state, with why when it is not writable (the readiness check's reason). */
  onState?: (state: SpoolState, reason?: string) => void;
}

type SpoolState = 'writable' | 'unwritable';

/** What the liveness body reports as `readings`. */
export interface ReadingStats {
  unacknowledged: number;
  spoolBytes: number;
  /** Unacknowledged readings dropped since start to make room: the oldest, when the spool was full (`evicted`). */
  dropped: number;
  /** Readings read since start that could not be written to the spool (a full disk, a directory not writable). */
  unwritten: number;
  /** Readings since start the backend acknowledged as refused (it cannot store them as given). */
  refused: number;
  /** Numbered readings declared lost to the backend and not yet acknowledged past. */
  declaredLost: number;
}

/** What a backend link needs of the outbox: frames to send, and a fresh start on each socket. */
type SendQueue = Pick<Outbox, 'rewind' | 'hasNext' | 'next'>;

export interface ReadingSpool {
  readonly session: string;
  /** What is unacknowledged, in order, for sending. */
  readonly outbox: SendQueue;
  /** What the device will never send, to declare on each socket. */
  readonly losses: Pick<LossLedger, 'rewind' | 'unsent'>;
  /** Numbers a line as this session's next reading and appends it; undefined when it could not be written. */
  push(value: string, timestamp?: Date): Reading | undefined;
  /** Forgets `session`'s readings up to `seq` (refused ones with a summed warning); returns how many. */
  ack(ack: AckMessage): number;
  stats(): ReadingStats;
  readonly size: number;
  /** Reports pending warnings, syncs and closes the files; the spool keeps what is unacknowledged. */
  close(): void;
}

export function openReadingSpool(options: ReadingSpoolOptions): ReadingSpool {
  const { dir, session, maxBytes, log, syncIntervalMs = 1000, warnIntervalMs = 5000, onState } = options;
  const segmentBytes = options.segmentBytes ?? Math.min(4 << 20, Math.max(64 << 10, Math.floor(maxBytes / 16)));
  const warnings = spoolWarnings(log, { dir, maxBytes, intervalMs: warnIntervalMs });

  const outbox = createOutbox({ read: (id, start, end) => segments.find((s) => s.id === id)!.read(start, end) });
  const losses = createLossLedger();
  const { segments, active: first, lock } = openFiles(options, outbox, losses);
  let active = first;
  let state: SpoolState = 'writable';
  let unwritten = 0;
  let spoolBytes = segments.reduce((sum, s) => sum + s.bytes, 0);
  let dropped = 0;
  let refused = 0;
  let lastSeq = 0;
  let closed = false;
  let syncTimer: NodeJS.Timeout | undefined;
  compact();

  function removeOldest() {
    const oldest = segments.shift()!;
    spoolBytes -= oldest.bytes;
    oldest.remove();
    const gone = outbox.drop(oldest.id);
    if (!gone) return 0;
    losses.add(gone.session, 'evicted', gone.ranges);
    return rangesSize(gone.ranges);
  }

  /** Deletes the oldest segments once nothing in them is unacknowledged (never one whose acks an older needs). */
  function compact() {
    while (segments.length > 1 && segments[0] !== active && outbox.live(segments[0]!.id) === 0) removeOldest();
  }

  function roll() {
    active.sync();
    active = newSegment(active.id + 1);
    segments.push(active);
    compact();
  }

  /** A new segment; a spool directory removed while running is made again (with its lock and device files). */
  function newSegment(id: number): SpoolSegment {
    return createSegmentIn(dir, id, function recreate() {
      lock.renew();
      rememberDeviceId(dir, options.deviceId, 0, log);
      warnings.recreated.note({ dir });
    });
  }

  /** Appends a record, saying so when the spool turns unwritable or writable again; undefined when it failed. */
  function write(line: Buffer, what: Record<string, unknown>): number | undefined {
    try {
      const offset = append(line);
      setState('writable');
      return offset;
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      warnings.unwritten.note({ err: message, code, dir, ...what });
      setState('unwritable', `${code ?? 'error'}: ${message}`);
      return undefined;
    }
  }

  function setState(next: SpoolState, reason?: string) {
    if (next === state) return;
    state = next;
    onState?.(next, reason);
  }

  /** Makes room for `bytes` more: a full spool gives up its oldest segment, unacknowledged readings and all. */
  function makeRoom(bytes: number) {
    if (active.bytes > 0 && active.bytes + bytes > segmentBytes) roll();
    while (spoolBytes + bytes > maxBytes) {
      if (segments[0] === active) {
        if (active.bytes === 0) return; // nothing left to give up (a record over maxBytes)
        roll();
        continue;
      }
      const lost = removeOldest();
      if (lost > 0) {
        dropped += lost;
        warnings.full.note({ droppedTotal: dropped, oldestKeptSeq: outbox.oldest()?.seq }, lost);
      }
    }
  }

  function append(line: Buffer): number {
    // Removed with its directory: what it holds still goes out from the open file, new records go to a new one.
    if (!active.linked) roll();
    makeRoom(line.length);
    const offset = active.append(line);
    spoolBytes += line.length;
    syncTimer ??= setTimeout(function syncSpool() {
      syncTimer = undefined;
      try {
        active.sync();
      } catch (error) {
        log.warn({ err: (error as Error).message, dir }, 'could not sync the spool');
      }
    }, syncIntervalMs).unref();
    return offset;
  }

  return {
    session,
    outbox,
    losses,
    push(value, timestamp = new Date()) {
      if (closed) return undefined;
      lastSeq += 1;
      const reading: Reading = { seq: lastSeq, timestamp: timestamp.toISOString(), value };
      const { line, jsonOffset, jsonBytes } = encodeReadingRecord(session, reading);
      const offset = write(line, { seq: reading.seq });
      if (offset === undefined) {
        unwritten += 1;
        losses.add(session, 'unwritten', [[reading.seq, reading.seq]]);
        return undefined;
      }
      outbox.add(active.id, session, reading.seq, offset + jsonOffset, jsonBytes);
      return reading;
    },
    ack({ session: ackSession, seq, refused: refusedSeqs }) {
      if (closed) return 0;
      const declared = losses.size;
      losses.forget(ackSession, seq);
      const forgotten = outbox.forget(ackSession, seq, refusedSeqs && new Set(refusedSeqs));
      if (forgotten.forgotten === 0 && losses.size === declared) return 0;
      compact();
      refused += forgotten.refused.length;
      if (forgotten.refused.length > 0) {
        warnings.refused.note({ session: ackSession, seqs: forgotten.refused.slice(0, 20) }, forgotten.refused.length);
      }
      // A missing ack record is noticed only by a restart: it resends these, and the backend ignores them.
      write(encodeAck(ackSession, seq), { ack: seq });
      return forgotten.forgotten;
    },
    stats: () => ({ unacknowledged: outbox.size, spoolBytes, dropped, unwritten, refused, declaredLost: losses.size }),
    get size() {
      return outbox.size;
    },
    close() {
      if (closed) return;
      closed = true;
      clearTimeout(syncTimer);
      for (const warning of Object.values(warnings)) warning.flush();
      try {
        active.sync();
      } finally {
        for (const s of segments) s.close();
        lock.release();
      }
    },
  };
}

/** The lock, the previous sessions' segments replayed into `outbox`, then a segment of this session's own. */
function openFiles({ dir, deviceId, log }: ReadingSpoolOptions, outbox: Outbox, losses: LossLedger) {
  let segments: SpoolSegment[] = [];
  let lock: SpoolLock | undefined;
  try {
    makeDirectory(dir);
    lock = lockSpool(dir);
    segments = replaySpool(dir, outbox, log, losses);
    rememberDeviceId(dir, deviceId, outbox.size, log);
    const active = createSegment(dir, (segments.at(-1)?.id ?? 0) + 1);
    segments.push(active);
    return { segments, active, lock };
  } catch (error) {
    for (const s of segments) s.close();
    lock?.release();
    // In use by another process: its own one line. A file system's refusal is a setting to fix (one line, exit 1);
    // anything else is a bug and keeps its stack.
    if (error instanceof ConfigError || !(error as NodeJS.ErrnoException).code) throw error;
    const { message } = error as Error;
    throw new ConfigError(
      `DEVICE_SPOOL_DIR=${dir} cannot be used: ${message} (it must be a directory this user can write)`,
      { cause: error },
    );
  }
}

/** The spool's warnings, each the first at once and then summed per interval. */
function spoolWarnings(
  log: Logger,
  { dir, maxBytes, intervalMs }: { dir: string; maxBytes: number; intervalMs: number },
) {
  const plural = (n: number) => (n === 1 ? '' : 's');
  const summed = (message: (n: number) => string) => createSummedWarning(log, message, { intervalMs });
  return {
    full: summed((n) => `spool full (${maxBytes} bytes): dropped the ${n} oldest unacknowledged reading${plural(n)}`),
    unwritten: summed((n) => `could not write ${n} record${plural(n)} to the spool`),
    recreated: summed((n) => `spool directory ${dir} was removed: made it again (${n} time${plural(n)})`),
    refused: summed((n) => `the backend refused ${n} reading${plural(n)}: dropped`),
  };
}

/** A new segment in `dir`; where `dir` is gone (removed while running), it is made again and `recreated` called. */
function createSegmentIn(dir: string, id: number, recreated: () => void): SpoolSegment {
  try {
    return createSegment(dir, id);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    makeDirectory(dir);
    recreated();
    return createSegment(dir, id);
  }
}
