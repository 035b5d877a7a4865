// Opening the spool directory at start-up: made if missing, locked against a second process, the previous sessions'
// segments replayed (spool-replay.ts), the device id checked, and a first segment of this session's own made. A
// file system's refusal is one line naming DEVICE_SPOOL_DIR.
import { ConfigError } from '../../lib/config-error.ts';
import type { Logger } from '../../lib/logger.ts';
import type { LossLedger } from './loss-ledger.ts';
import { makeDirectory } from './make-directory.ts';
import type { Outbox } from './outbox.ts';
import { rememberDeviceId } from './spool-device-id.ts';
import type { SpoolHistory } from './spool-history.ts';
import { lockSpool, type SpoolLock } from './spool-lock.ts';
import { replaySpool } from './spool-replay.ts';
import { createSegment, type SpoolSegment } from './spool-segment.ts';

export interface OpenedSpool {
  /** The previous sessions' segments, oldest first, then this session's first (the active one). */
  segments: SpoolSegment[];
  lock: SpoolLock;
}

/** Locks `dir` and replays it into `outbox`, `losses` and `history`. */
export function openSpoolDir(
  { dir, deviceId, log }: { dir: string; deviceId: string; log: Logger },
  into: { outbox: Outbox; losses: LossLedger; history: SpoolHistory },
): OpenedSpool {
  let segments: SpoolSegment[] = [];
  let lock: SpoolLock | undefined;
  try {
    makeDirectory(dir);
    lock = lockSpool(dir);
    segments = replaySpool(dir, into.outbox, log, into);
    rememberDeviceId(dir, deviceId, into.outbox.size, log);
    segments.push(createSegment(dir, (segments.at(-1)?.id ?? 0) + 1));
    return { segments, lock };
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
