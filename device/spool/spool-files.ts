// The spool's segment files: the one appended to, a new one past the segment size, the oldest removed to stay under
// the bound (as the room rule, spool-room.ts, says) or once nothing in it is unacknowledged, and a sync at most once
// an interval. What a segment holds is not known here: the spool (reading-spool.ts) is asked before one goes.
import type { Logger } from '../../lib/logger.ts';
import { makeDirectory } from './make-directory.ts';
import { rollsFirst, roomStep } from './spool-room.ts';
import { createSegment, type SpoolSegment } from './spool-segment.ts';

export interface SpoolFilesOptions {
  dir: string;
  maxBytes: number;
  segmentBytes: number;
  syncIntervalMs: number;
  log: Logger;
  /** Unacknowledged readings in segment `id`: a segment goes unasked only with none. */
  live(id: number): number;
  /**
   * Segment `id` is about to go (full spool or all acknowledged): the spool forgets it, and may write records with
   * `carry` (to the active segment, as they are: room is being made).
   */
  retiring(id: number, carry: (line: Buffer) => number): void;
  /** The spool directory was removed while running and made again: the lock and the device id go in again. */
  recreated(): void;
}

export interface SpoolFiles {
  /** The whole spool's bytes, as appended and removed. */
  readonly bytes: number;
  /** The segment appended to. */
  readonly activeId: number;
  read(id: number, start: number, end: number): Buffer;
  /** Appends a reading's record, rolling over and making room first; its offset. Throws what the file system did. */
  append(line: Buffer): number;
  /** Appends an ack or lost record, rolling over and making room first; its offset. */
  appendRecord(line: Buffer): number;
  /** Removes the oldest segments with nothing unacknowledged (never the active one, never out of order). */
  compact(): void;
  /** Syncs and closes every file. */
  close(): void;
}

export function openSpoolFiles(found: SpoolSegment[], options: SpoolFilesOptions): SpoolFiles {
  const { dir, maxBytes, segmentBytes, syncIntervalMs, log, live, retiring } = options;
  const segments = [...found];
  let active = segments.at(-1)!;
  let activeHasReadings = false;
  let spoolBytes = segments.reduce((sum, s) => sum + s.bytes, 0);
  const syncer = createSyncer(syncIntervalMs, () => active, log);

  function removeOldest() {
    const oldest = segments[0]!;
    retiring(oldest.id, write); // its ack and lost records are written again (as they are) before it goes
    segments.shift();
    spoolBytes -= oldest.bytes;
    oldest.remove();
  }

  function compact() {
    while (segments.length > 1 && segments[0] !== active && live(segments[0]!.id) === 0) removeOldest();
  }

  function roll() {
    active.sync();
    active = createSegmentIn(dir, active.id + 1, options.recreated);
    activeHasReadings = false;
    segments.push(active);
    compact();
  }

  /**
   * Makes room for `bytes` more: a full spool gives up its oldest segment, unacknowledged readings and all. A segment
   * removed with its directory still reads from its open file; new records go to a new one.
   */
  function makeRoom(bytes: number) {
    if (!active.linked || rollsFirst(active.bytes, bytes, segmentBytes)) roll();
    const state = () => ({
      ...{ spoolBytes, activeBytes: active.bytes, activeHasReadings },
      activeIsOldest: segments[0] === active,
    });
    for (let step = roomStep(state(), bytes, maxBytes); step !== 'done'; step = roomStep(state(), bytes, maxBytes)) {
      if (step === 'roll') roll();
      else removeOldest();
    }
  }

  function write(line: Buffer): number {
    const offset = active.append(line);
    spoolBytes += line.length;
    syncer.soon();
    return offset;
  }

  return {
    get bytes() {
      return spoolBytes;
    },
    get activeId() {
      return active.id;
    },
    read: (id, start, end) => segments.find((s) => s.id === id)!.read(start, end),
    append(line) {
      makeRoom(line.length);
      const offset = write(line);
      activeHasReadings = true;
      return offset;
    },
    appendRecord(line) {
      makeRoom(line.length);
      return write(line);
    },
    compact,
    close() {
      syncer.cancel();
      try {
        active.sync();
      } finally {
        for (const s of segments) s.close();
      }
    },
  };
}

/** Syncs the active segment once, `intervalMs` after the first `soon` since it last did: what a power loss may lose. */
function createSyncer(intervalMs: number, active: () => SpoolSegment, log: Logger) {
  let timer: NodeJS.Timeout | undefined;
  return {
    soon() {
      timer ??= setTimeout(function syncSpool() {
        timer = undefined;
        try {
          active().sync();
        } catch (error) {
          log.warn({ err: (error as Error).message, path: active().path }, 'could not sync the spool');
        }
      }, intervalMs).unref();
    },
    cancel: () => clearTimeout(timer),
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
