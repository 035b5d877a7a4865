// One device service per spool directory, raced for real: several processes take the same spool lock at the same
// instant, many times, on a fresh directory and on one holding a dead process's lock. Exactly one may win each time.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScratch } from './support/scratch.ts';
import { spawnProcess, stopAll, type Spawned } from './support/spawn-process.ts';
import { root } from './support/spawn-service.ts';
import { waitFor } from './support/deadline.ts';

const RACERS = 4;
const ROUNDS = 60;
const scratch = createScratch('spool-lock-race-');
let racers: Spawned[] = [];

test.before(async () => {
  racers = Array.from({ length: RACERS }, () =>
    spawnProcess(process.execPath, ['--import', 'tsx', 'test/support/spool-lock-racer.ts'], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  await Promise.all(racers.map((r) => waitFor(() => r.stdout.includes('ready'), { timeout: 20_000, what: 'racer' })));
});
test.after(async () => {
  await stopAll();
  scratch.remove();
});

/** Sends `command` to every racer and returns each one's answer. */
async function everyone(command: string): Promise<string[]> {
  const before = racers.map((r) => r.stdout.length);
  for (const r of racers) r.child.stdin!.write(`${command}\n`);
  await waitFor(() => racers.every((r, i) => r.stdout.length > before[i]!), { timeout: 10_000, what: command });
  return racers.map((r, i) => r.stdout[before[i]!]!);
}

test(`${RACERS} processes locking one directory at the same instant: exactly one wins, ${ROUNDS} times`, async () => {
  const outcomes: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const dir = join(scratch.dir, `round-${round}`);
    mkdirSync(dir);
    // Every other round the directory holds the lock of a process that is gone (this pid, another start time):
    // the racers all find it stale and take it over at once.
    if (round % 2 === 1) writeFileSync(join(dir, 'lock'), `${process.pid} 1\n`);
    const answers = await everyone(`lock ${dir} ${Date.now() + 30}`);
    const winners = answers.filter((a) => a === 'locked').length;
    outcomes.push(`${round % 2 ? 'stale' : 'fresh'}: ${answers.join(' ')}`);
    assert.equal(
      answers.filter((a) => a !== 'locked' && a !== 'refused'),
      [],
      'every racer either holds the lock or is refused',
    );
    assert.is(winners, 1, `round ${round}: ${answers.join(', ')}\n${outcomes.join('\n')}`);
    const winner = racers[answers.indexOf('locked')]!;
    assert.is(readFileSync(join(dir, 'lock'), 'utf8').split(' ')[0], String(winner.pid), 'the lock names the winner');
    assert.equal(await everyone('release'), Array(RACERS).fill('released'));
    assert.equal(readdirSync(dir), [], 'released, and no temporary file left behind');
  }
});

test.run();
