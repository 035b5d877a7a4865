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
import type { AckMessage, Reading } from '../../lib/device-protocol.ts';
import { rangesSize } from '../../lib/seq-ranges.ts';
import type { Logger } from '../../lib/logger.ts';
import { createSummedWarning } from '../../lib/summed-warning.ts';
import { createLossLedger, type LossLedger } from './loss-ledger.ts';
import { createOutbox, type Outbox } from './outbox.ts';
import { rememberDeviceId } from './spool-device-id.ts';
import { openSpoolFiles, type SpoolFiles } from './spool-files.ts';
import { createSpoolHistory, type HistoryRecord, type SpoolHistory } from './spool-history.ts';
import { openSpoolDir } from './spool-open.ts';
import { encodeAck, encodeLost, encodeReadingRecord } from './spool-record.ts';
import { segmentBytesFor } from './spool-room.ts';
import { createWriteState, type SpoolState, type WriteState } from './spool-state.ts';

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
  const { dir, session, maxBytes, log, syncIntervalMs = 1000, warnIntervalMs = 5000 } = options;
  const warnings = spoolWarnings(log, { dir, maxBytes, intervalMs: warnIntervalMs });
  const outbox = createOutbox({ read: (id, start, end) => files.read(id, start, end) });
  const losses = createLossLedger();
  const history = createSpoolHistory();
  const { segments, lock } = openSpoolDir(options, { outbox, losses, history });
  const counts = { dropped: 0, unwritten: 0, refused: 0 };
  const writes = createWriteState({ failed: (f) => warnings.unwritten.note({ ...f, dir }), onState: options.onState });
  let lastSeq = 0;
  let closed = false;
  const files: SpoolFiles = openSpoolFiles(segments, {
    ...{ dir, maxBytes, syncIntervalMs, log },
    segmentBytes: options.segmentBytes ?? segmentBytesFor(maxBytes),
    live: (id) => outbox.live(id),
    retiring: (id, carry) =>
      retireSegment(id, { ...parts, carry }, function evicted(lost) {
        counts.dropped += lost;
        warnings.full.note({ droppedTotal: counts.dropped, oldestKeptSeq: outbox.oldest()?.seq }, lost);
      }),
    recreated() {
      lock.renew();
      rememberDeviceId(dir, options.deviceId, 0, log);
      warnings.recreated.note({ dir });
    },
  });
  const parts: SpoolParts = { outbox, losses, history, files, writes };
  files.compact();

  function push(value: string, timestamp = new Date()): Reading | undefined {
    if (closed) return undefined;
    lastSeq += 1;
    const reading: Reading = { seq: lastSeq, timestamp: timestamp.toISOString(), value };
    if (appendReading(session, reading, parts)) return reading;
    counts.unwritten += 1;
    return undefined;
  }

  function ack(message: AckMessage): number {
    if (closed) return 0;
    const { forgotten, refused } = acknowledge(message, parts);
    counts.refused += refused.length;
    if (refused.length > 0)
      warnings.refused.note({ session: message.session, seqs: refused.slice(0, 20) }, refused.length);
    return forgotten;
  }

  return {
    session,
    outbox,
    losses,
    push,
    ack,
    stats: () => ({ unacknowledged: outbox.size, spoolBytes: files.bytes, ...counts, declaredLost: losses.size }),
    get size() {
      return outbox.size;
    },
    close() {
      if (closed) return;
      closed = true;
      recordUnshown(parts);
      for (const warning of Object.values(warnings)) warning.flush();
      try {
        files.close();
      } finally {
        lock.release();
      }
    },
  };
}

/** The spool's parts the functions below work on. */
interface SpoolParts {
  outbox: Outbox;
  losses: LossLedger;
  history: SpoolHistory;
  files: SpoolFiles;
  writes: WriteState;
}

/** Appends a reading's record and indexes it; a failed write declares its number unwritten. Whether it went in. */
function appendReading(session: string, reading: Reading, parts: SpoolParts): boolean {
  const { outbox, losses, history, files, writes } = parts;
  const { line, jsonOffset, jsonBytes } = encodeReadingRecord(session, reading);
  const offset = writes.attempt(() => files.append(line), { seq: reading.seq });
  if (offset === undefined) {
    losses.add(session, 'unwritten', [[reading.seq, reading.seq]]);
    history.unwritten(session, reading.seq);
    return false;
  }
  history.written(session);
  outbox.add(files.activeId, session, reading.seq, offset + jsonOffset, jsonBytes);
  return true;
}

/** Forgets what an ack passes, writes its record, then removes the segments it emptied; what it forgot. */
function acknowledge({ session, seq, refused }: AckMessage, parts: SpoolParts) {
  const { outbox, losses, files } = parts;
  const declared = losses.size;
  losses.forget(session, seq);
  const forgotten = outbox.forget(session, seq, refused && new Set(refused));
  if (forgotten.forgotten === 0 && losses.size === declared) return forgotten;
  // The ack record goes before the segments it empties: a restart between the two must not find their readings gone
  // with no ack passing them. A missing ack record is noticed only by a restart: it resends these, and the backend
  // ignores them.
  recordUnshown(parts);
  record({ type: 'ack', session, seq }, { ack: seq }, parts);
  files.compact();
  return forgotten;
}

/** A segment goes: what it held unacknowledged is evicted, and its ack and lost records are written again first. */
function retireSegment(
  id: number,
  parts: SpoolParts & { carry: (line: Buffer) => number },
  evicted: (lost: number) => void,
) {
  const { outbox, losses, history, files, carry } = parts;
  const gone = outbox.drop(id);
  const lost = gone ? rangesSize(gone.ranges) : 0;
  if (gone && lost > 0) {
    losses.add(gone.session, 'evicted', gone.ranges);
    evicted(lost);
  }
  for (const entry of history.carry(id, outbox.sessions(), losses.pending())) {
    carry(encodeHistory(entry));
    history.wrote(files.activeId, entry);
  }
  history.removed(id);
}

/** An ack or lost record, kept in the history once written. */
function record(entry: HistoryRecord, what: Record<string, unknown>, { files, history, writes }: SpoolParts) {
  if (writes.attempt(() => files.appendRecord(encodeHistory(entry)), what) === undefined) return;
  history.wrote(files.activeId, entry);
}

/** Readings never written that no later reading on disk shows: a lost record, so that a restart declares them. */
function recordUnshown(parts: SpoolParts) {
  for (const entry of parts.history.unrecorded()) record(entry, { lost: entry.type === 'lost' && entry.ranges }, parts);
}

/** An ack or lost record's line (spool-record.ts). */
const encodeHistory = (entry: HistoryRecord) =>
  entry.type === 'ack' ? encodeAck(entry.session, entry.seq) : encodeLost(entry.session, entry.reason, entry.ranges);

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
