// The spool lock in one process: what it writes, what it refuses, what it takes over (the race of real processes
// is test/spool-lock-race.test.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockSpool } from './spool-lock.ts';

const fresh = () => mkdtempSync(join(tmpdir(), 'spool-lock-'));

test('the lock names the pid and its start time; release removes it and leaves nothing behind', () => {
  const dir = fresh();
  const lock = lockSpool(dir);
  assert.match(readFileSync(join(dir, 'lock'), 'utf8'), new RegExp(`^${process.pid} \\d+\\n$`));
  lock.release();
  assert.equal(readdirSync(dir), []);
  rmSync(dir, { recursive: true });
});

test('a live holder refuses; a lock naming no pid, or a dead one, is taken over', async () => {
  const dir = fresh();
  const other = spawn('sleep', ['30']);
  try {
    lockSpool(dir, other.pid);
    assert.throws(
      () => lockSpool(dir),
      (e: Error & { code?: string }) => e.code === 'ESPOOLINUSE',
    );
  } finally {
    other.kill();
    await new Promise((resolve) => other.once('exit', resolve));
  }
  lockSpool(dir).release();
  writeFileSync(join(dir, 'lock'), 'not a pid\n');
  lockSpool(dir).release();
  assert.equal(readdirSync(dir), []);
  rmSync(dir, { recursive: true });
});

test('a takeover mark left by a process that died mid-takeover is cleared once old', () => {
  const dir = fresh();
  writeFileSync(join(dir, 'lock'), `${process.pid} 1\n`); // this pid, another start time: a gone process
  writeFileSync(join(dir, 'lock.takeover'), '');
  const old = new Date(Date.now() - 60_000);
  utimesSync(join(dir, 'lock.takeover'), old, old);
  const lock = lockSpool(dir);
  assert.equal(readdirSync(dir), ['lock']);
  lock.release();
  rmSync(dir, { recursive: true });
});

test.run();
