// One device service per spool directory: a `lock` file holding the pid of the process that uses it (and when that
// process started, so a pid used again by another process, as after a container restart, holds nothing). Two
// processes on one directory would send and delete each other's readings, so the second is refused at start-up; a
// lock whose process is gone (a crash, SIGKILL) is taken over.
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
  if (holder && holder.pid !== pid && isRunning(holder)) throw new SpoolInUseError(dir, holder.pid);
  write(file, pid);
  return {
    renew() {
      if (readHolder(file) === undefined) write(file, pid);
    },
    release() {
      if (readHolder(file)?.pid !== pid) return;
      try {
        unlinkSync(file);
      } catch {
        /* gone already: nothing to release */
      }
    },
  };
}

interface Holder {
  pid: number;
  /** The process's start time (clock ticks after boot); undefined where /proc does not tell it. */
  started: string | undefined;
}

/** What the lock file names; undefined when there is none or it names no pid. */
function readHolder(file: string): Holder | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const [pidText, started] = text.trim().split(' ');
  const pid = Number(pidText);
  return Number.isSafeInteger(pid) && pid > 0 ? { pid, started: started || undefined } : undefined;
}

/** Whether the holder's process still runs: its pid is alive, and started when the lock says. */
function isRunning({ pid, started }: Holder): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false; // EPERM: alive, another user's
  }
  return started === undefined || startTime(pid) === started;
}

/** Field 22 of /proc/<pid>/stat: when the process started; undefined where there is no /proc. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Through a rename, so a reader sees the old holder or the new, never half of one. */
function write(file: string, pid: number) {
  const started = startTime(pid);
  writeFileSync(`${file}.${pid}.new`, `${pid}${started ? ` ${started}` : ''}\n`);
  renameSync(`${file}.${pid}.new`, file);
}
