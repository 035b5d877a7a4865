// Whether a test process's group still has a process running once the test process has exited. A member that has
// exited but not been reaped (a zombie) is not running: a child that outlives its parent by a moment is handed to
// PID 1, and where PID 1 does not reap (some containers and VMs), it stays a zombie in the group for good; counted
// as running, every file whose child ended just after it (tsx's esbuild service, a service shutting down) would
// wait out the settle time and be reported as having left processes running.
import { readFileSync, readdirSync } from 'node:fs';

/** Whether any process of group `pgid` is still there and not a zombie. */
export function groupRunning(pgid: number): boolean {
  if (!groupExists(pgid)) return false;
  if (process.platform !== 'linux') return true; // no /proc to tell a zombie from a process
  return readdirSync('/proc').some((name) => /^\d+$/.test(name) && runningIn(name, pgid));
}

/** Whether any process of the group exists, zombies included (signal 0 only asks). */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** /proc/<pid>/stat is `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses, so read after the last. */
function runningIn(pid: string, pgid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false; // it ended while we looked
  }
  const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(pgrp) === pgid && state !== 'Z' && state !== 'X';
}
