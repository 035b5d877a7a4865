// One device service per spool directory: a `lock` file holding the pid of the process that uses it (and when that
// process started, so a pid used again by another process, as after a container restart, holds nothing). Two
// processes on one directory would send and delete each other's readings, so the second is refused at start-up; a
// lock whose process is gone (a crash, SIGKILL) is taken over.
//
// Taking it is atomic: the lock's text is written to a file of this process's own and then hard-linked as `lock`,
// which fails (EEXIST) when a lock is there, so two processes starting at the same instant cannot both win, and no
// reader ever sees a half-written lock. A stale lock is removed only by the one process holding `lock.takeover`
// (created exclusively), and only if it is still the very file judged stale (inode, time and text): a racer that
// judged the same lock stale a moment later finds the winner's new lock there instead and is refused.
import { closeSync, fstatSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../lib/config-error.ts';

const LOCK_FILE = 'lock';
/** Attempts to take the lock while other processes take over a stale one; 5 ms apart, about a second in all. */
const ATTEMPTS = 200;
const RETRY_MS = 5;
/** A takeover mark older than this was left by a process that died within its few microseconds of takeover. */
const TAKEOVER_STALE_MS = 5000;

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
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (create(file, pid)) return heldLock(file, pid);
    const holder = readHolder(file);
    if (holder && holder.pid !== pid && isRunning(holder)) throw new SpoolInUseError(dir, holder.pid);
    // Gone in between (released), or stale: removed under the takeover mark, then try again.
    if (holder) removeStale(file, holder.identity);
    else pause(RETRY_MS);
  }
  throw new ConfigError(`DEVICE_SPOOL_DIR=${dir}: could not take its lock (${file}) in ${ATTEMPTS} attempts`);
}

function heldLock(file: string, pid: number): SpoolLock {
  return {
    renew() {
      if (readHolder(file) === undefined) create(file, pid);
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

/** Publishes a lock naming `pid` at `file` unless one is there: true when this call made it. */
function create(file: string, pid: number): boolean {
  const started = startTime(pid);
  const own = `${file}.${pid}.new`;
  writeFileSync(own, `${pid}${started ? ` ${started}` : ''}\n`);
  try {
    linkSync(own, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkQuietly(own);
  }
}

/**
 * Removes the lock at `file` if it is still the file judged stale (its `identity`), holding the takeover mark
 * meanwhile; when another process holds the mark, waits a moment instead (the caller tries again either way).
 */
function removeStale(file: string, identity: string): void {
  const mark = `${file}.takeover`;
  let fd: number;
  try {
    fd = openSync(mark, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (ageMs(mark) > TAKEOVER_STALE_MS) unlinkQuietly(mark);
    else pause(RETRY_MS);
    return;
  }
  try {
    if (readLock(file)?.identity === identity) unlinkQuietly(file);
  } finally {
    closeSync(fd);
    unlinkQuietly(mark);
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function unlinkQuietly(path: string) {
  try {
    unlinkSync(path);
  } catch {
    /* gone already */
  }
}

/** A synchronous wait: taking the lock happens once, at start-up, before anything else runs. */
function pause(ms: number) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

interface Holder {
  pid: number;
  /** Which file was judged (readLock), should it need removing. */
  identity: string;
  /** The process's start time (clock ticks after boot); undefined where /proc does not tell it. */
  started: string | undefined;
}

/** What the lock file names; undefined when there is none. A lock naming no pid is stale (pid 0). */
function readHolder(file: string): Holder | undefined {
  const read = readLock(file);
  if (!read) return undefined;
  const [pidText, started] = read.text.trim().split(' ');
  const pid = Number(pidText);
  const valid = Number.isSafeInteger(pid) && pid > 0;
  return { pid: valid ? pid : 0, started: started || undefined, identity: read.identity };
}

/**
 * The lock's text, and what tells this very file from a later one: its inode (which a new file may be given again
 * once this one is gone), its modification time and its text, read through one descriptor.
 */
function readLock(file: string): { text: string; identity: string } | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const { ino, mtimeMs } = fstatSync(fd);
    const text = readFileSync(fd, 'utf8');
    return { text, identity: `${ino} ${mtimeMs} ${text}` };
  } finally {
    closeSync(fd);
  }
}

/** Whether the holder's process still runs: its pid is alive, and started when the lock says. */
function isRunning({ pid, started }: Holder): boolean {
  if (pid === 0) return false;
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
