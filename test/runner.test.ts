// The test runner's deadline: a test file that hangs is stopped, and so is everything it started.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnProcess, stopAll } from './support/spawn-process.ts';

const FIXTURE = 'test/fixtures/runner/hangs-with-children.ts';
const OWN_DEADLINE = 'test/fixtures/runner/own-deadline.ts';
let leftover: number[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'runner-test-'));
const cleanedUp = join(scratch, 'cleaned-up');

/** A process is gone when it no longer exists, or is a zombie waiting only to be reaped. */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

test.after(async () => {
  await stopAll();
  rmSync(scratch, { recursive: true, force: true });
  // On a runner that leaves them behind, this test fails; it must not also leave them on the machine.
  for (const pid of leftover) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
});

test('a test file past its deadline leaves none of the processes it started running, and cleans up', async () => {
  const runner = spawnProcess(process.execPath, ['--import', 'tsx', 'test/run.ts', FIXTURE], {
    env: { ...process.env, TEST_FILE_TIMEOUT_MS: '3000', TEST_CONCURRENCY: '1', CLEANED_UP_FILE: cleanedUp },
  });
  const code = await runner.waitExit(60_000);
  const output = runner.lines.join('\n');
  const pids = /sleeping pids: ([\d ]+)/.exec(output)?.[1]?.split(' ').map(Number) ?? [];
  leftover = pids;
  assert.is(pids.length, 3, `the fixture started its children:\n${output}`);
  assert.ok(
    pids.every((pid) => pid > 0),
    `every child started: ${pids.join(' ')}`,
  );
  assert.is(code, 1, 'a file past its deadline fails the run');
  assert.match(output, `✘ ${FIXTURE}: killed after 3000 ms`);
  assert.equal(pids.filter(running), [], 'children still running after the runner ended');
  assert.ok(
    existsSync(cleanedUp) && readFileSync(cleanedUp, 'utf8') === 'cleaned up',
    'the clean-up it registered ran',
  );
});

test("a file's own `// test-deadline: N s` line sets its deadline", async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, TEST_CONCURRENCY: '1' };
  delete env.TEST_FILE_TIMEOUT_MS;
  const runner = spawnProcess(process.execPath, ['--import', 'tsx', 'test/run.ts', OWN_DEADLINE], { env });
  const code = await runner.waitExit(60_000);
  assert.is(code, 1);
  assert.match(runner.lines.join('\n'), `✘ ${OWN_DEADLINE}: killed after 2000 ms`);
});

test.run();
