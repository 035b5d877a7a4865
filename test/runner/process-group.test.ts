// groupRunning() against real process groups: one with a process running, and one left holding only a zombie
// (a child whose parent moved to a group of its own and never reaps it), which signal 0 still finds.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { waitFor } from '../support/deadline.ts';
import { spawnProcess, stopAll } from '../support/spawn-process.ts';
import { groupRunning } from './process-group.ts';

const pids: number[] = [];

/** State and process group of `pid` from /proc/<pid>/stat, or undefined once it is gone. */
function stat(pid: number): { state: string; pgrp: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, , pgrp] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: state!, pgrp: Number(pgrp) };
  } catch {
    return undefined;
  }
}

test.after(async () => {
  await stopAll();
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
});

test('a group with a process running is running; once it has exited and been reaped, it is not', async () => {
  const sleeper = spawnProcess('sleep', ['300']); // the leader of a group of its own
  pids.push(sleeper.pid);
  assert.ok(groupRunning(sleeper.pid));
  await sleeper.stop();
  await waitFor(() => !stat(sleeper.pid), { timeout: 10_000, what: 'the sleep reaped' });
  assert.not.ok(groupRunning(sleeper.pid));
});

test('a group holding only a zombie is not running, though signal 0 still finds the group', async () => {
  // The leader starts a shell in its group that starts a child there, then moves itself to a session of its own
  // (setsid) as a `sleep` that never reaps; the child ends once its parent is that `sleep` (a child that ended
  // sooner, the shell would reap), and the leader exits. What is left in the group is the child, a zombie.
  const child = 'until grep -qx sleep /proc/$PPID/comm; do sleep 0.05; done';
  const parent = `sh -c '${child}' & echo zombie $!; exec setsid sleep 300 >/dev/null 2>&1`;
  const leader = spawnProcess('sh', ['-c', 'sh -c "$1" & echo parent $!', 'sh', parent]);
  const pid = (word: string) => Number(leader.stdout.find((l) => l.startsWith(word))?.split(' ')[1]);
  await waitFor(() => pid('zombie') && pid('parent'), { timeout: 30_000, what: 'both pids' });
  pids.push(pid('parent'));
  await leader.waitExit(30_000);
  await waitFor(() => stat(pid('zombie'))?.state === 'Z', { timeout: 30_000, what: 'the child a zombie' });
  await waitFor(() => stat(pid('parent'))?.pgrp === pid('parent'), {
    timeout: 30_000,
    what: 'its parent in a group of its own',
  });
  assert.not.throws(() => process.kill(-leader.pid, 0), 'signal 0 finds the group (what the runner used to ask)');
  assert.not.ok(groupRunning(leader.pid), 'a zombie is not a process running');
});

test.run();
