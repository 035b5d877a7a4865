// One device service per spool directory: a `lock` file holding the pid of the process that uses it. Two processes on
// one directory would send and delete each other's readings, so the second is refused at start-up; a lock whose
// process is gone (a crash, SIGKILL) is taken over.
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../lib/config-error.ts';

const LOCK_FILE = 'lock';

/** The directory is in use by another live process: a start-up refusal, one line like a bad setting. */
class SpoolInUseError extends ConfigError {
  override name = 'SpoolInUseError';
  readonly code = 'ESPOOLINUSE';
  constructor(dir: string, pid: number) {
    super(`DEVICE_SPOOL_DIR=${dir} is in use by another device service (pid ${pid}): one device service per directory`);
  }
}

export interface SpoolLock {
  /** Writes the lock again if it is gone (the directory was removed and made again). */
  renew(): void;
  /** Removes the lock if it is still this process's. */
  release(): void;
}

export function lockSpool(dir: string, pid = process.pid): SpoolLock {
  const file = join(dir, LOCK_FILE);
  const holder = readHolder(file);
  if (holder !== undefined && holder !== pid && isAlive(holder)) throw new SpoolInUseError(dir, holder);
  write(file, pid);
  return {
    renew() {
      if (readHolder(file) === undefined) write(file, pid);
    },
    release() {
      if (readHolder(file) !== pid) return;
      try {
        unlinkSync(file);
      } catch {
        /* gone already: nothing to release */
      }
    },
  };
}

/** The pid in the lock file; undefined when there is none or it holds no pid. */
function readHolder(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/** Through a rename, so a reader sees the old pid or the new, never half of one. */
function write(file: string, pid: number) {
  writeFileSync(`${file}.${pid}.new`, `${pid}\n`);
  renameSync(`${file}.${pid}.new`, file);
}
