// The test runner (test/run.ts) against files that misbehave: one that hangs, crashes, exits mid-suite, prints
// text that looks like uvu's totals, leaves a process behind or a timer open in a batch; Ctrl-C mid-run; --repeat.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './support/deadline.ts';
import { sideBySide } from './support/side-by-side.ts';
import { spawnProcess, stopAll } from './support/spawn-process.ts';
import { USAGE } from './runner/args.ts';

const FIXTURES = 'test/fixtures/runner';
const HANGS = `${FIXTURES}/hangs-with-children.ts`;
const OWN_DEADLINE = `${FIXTURES}/own-deadline.ts`;
const PASSES = `${FIXTURES}/passes.ts`;
const leftover: number[] = [];
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

/** Runs test/run.ts with `args` to its end: its exit code and its lines. */
async function runner(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawnProcess(process.execPath, ['--import', 'tsx', 'test/run.ts', ...args], {
    env: { ...process.env, TEST_CONCURRENCY: '1', ...env },
  });
  const code = await child.waitExit(90_000);
  return { code, lines: child.lines, output: child.lines.join('\n') };
}

// Each test runs the runner on files of its own, with files of its own in `scratch`: they run side by side, so the
// file takes about as long as its longest test, the one that waits out a file's deadline.
const sideBySideTest = sideBySide(test, 4);

const pidsIn = (file: string) => readFileSync(file, 'utf8').split(' ').map(Number);

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

sideBySideTest(
  'a test file past its deadline leaves none of the processes it started running, and cleans up',
  async () => {
    // Long enough for the file to start its children on a busy machine; the test waits for none of it.
    const { code, output } = await runner([HANGS], { TEST_FILE_TIMEOUT_MS: '20000', CLEANED_UP_FILE: cleanedUp });
    const pids = /sleeping pids: ([\d ]+)/.exec(output)?.[1]?.split(' ').map(Number) ?? [];
    leftover.push(...pids);
    assert.is(pids.length, 3, `the fixture started its children:\n${output}`);
    assert.ok(
      pids.every((pid) => pid > 0),
      `every child started: ${pids.join(' ')}`,
    );
    assert.is(code, 1, 'a file past its deadline fails the run');
    assert.match(output, `[1/1] ✘ ${HANGS}  0 passed, 1 failed`);
    assert.match(output, `✘ ${HANGS}: killed after 20000 ms`);
    assert.equal(pids.filter(running), [], 'children still running after the runner ended');
    assert.ok(
      existsSync(cleanedUp) && readFileSync(cleanedUp, 'utf8') === 'cleaned up',
      'the clean-up it registered ran',
    );
  },
);

sideBySideTest("a file's own `// test-deadline: N s` line sets its deadline", async () => {
  const { code, output } = await runner([OWN_DEADLINE], { TEST_FILE_TIMEOUT_MS: undefined });
  assert.is(code, 1);
  assert.match(output, `✘ ${OWN_DEADLINE}: killed after 2000 ms`);
});

sideBySideTest('files naming the same `// test-exclusive:` resource take turns, others run beside them', async () => {
  const turns = join(scratch, 'turns');
  const files = [`${FIXTURES}/holds-a-resource.ts`, `${FIXTURES}/holds-it-too.ts`, PASSES];
  const { code, output } = await runner(files, { TEST_CONCURRENCY: '2', TURNS_FILE: turns });
  assert.is(code, 0, output);
  assert.is(readFileSync(turns, 'utf8'), 'begin\nend\nbegin\nend\n', 'one ended before the other began');
});

sideBySideTest(
  'a crash, an exit mid-suite, a set-up that throws and text like uvu totals: each counted, with why',
  async () => {
    const names = ['crashes-at-load', 'exits-mid-test', 'prints-totals', 'before-hook-throws'];
    const files = names.map((name) => `${FIXTURES}/${name}.ts`);
    const { code, lines, output } = await runner(files);
    assert.is(code, 1);
    assert.match(output, `✘ ${files[0]}: ended (exit code 1) without uvu results`);
    assert.match(output, 'Error: broken at load', "the crashing file's output is printed whole");
    assert.match(output, `✘ ${files[1]}: ended (exit code 3) before its tests finished: 0 of 1 suites ran`);
    assert.match(output, `✘ ${files[2]}  1 passed, 1 failed`);
    assert.match(output, `✘ ${files[2]}: 1 of 2 tests failed`);
    const never = "a suite's before hook threw, so 2 of its 2 tests never ran";
    assert.match(output, `✘ ${files[3]}: ${never}`);
    assert.match(output, 'Error: set-up failed: the stack did not start', "the hook's error is printed whole");
    assert.is(lines.at(-1), '1 passed, 5 failed', 'the totals line is the last');
  },
);

sideBySideTest('passing files print one line each and nothing of their output; the slowest are listed', async () => {
  const { code, lines, output } = await runner([PASSES, `${FIXTURES}/leaves-a-child.ts`], {
    PIDS_FILE: join(scratch, 'child-pid'),
    TEST_SETTLE_MS: '500', // the `sleep` it leaves is there for good: no need to give it the default 3 s to end
  });
  const [pid] = pidsIn(join(scratch, 'child-pid'));
  leftover.push(pid!);
  assert.is(code, 0, output);
  assert.match(output, new RegExp(`^\\[1/2\\] ✔ ${PASSES}  1 passed  \\d+\\.\\d s$`, 'm'));
  assert.match(output, `[2/2] ✔ ${FIXTURES}/leaves-a-child.ts  1 passed`);
  assert.match(output, '(left processes running: killed)');
  assert.not.match(output, '•', "uvu's own report of a passing file is not printed");
  assert.match(output, 'slowest 2:');
  assert.is(lines.at(-1), '2 passed, 0 failed');
  assert.not.ok(running(pid!), 'the child it left in its process group was killed');
});

sideBySideTest(
  'in a batch, a file that exits takes no other file with it, and one that leaves a timer is named',
  async () => {
    const files = ['exits-mid-test', 'leaves-a-timer', 'passes'].map((name) => `${FIXTURES}/${name}.ts`);
    const { code, lines, output } = await runner(['--batch', ...files], { TEST_BATCH_STUCK_MS: '500' });
    assert.is(code, 1);
    assert.match(output, `[1/3] ✘ ${files[0]}  0 passed, 1 failed`);
    assert.match(output, `[2/3] ✔ ${files[1]}  1 passed`);
    assert.match(output, `[3/3] ✔ ${files[2]}  1 passed`);
    assert.match(output, `still running after its last file (open: Timeout); handles left after ${files[1]} (Timeout)`);
    assert.is(lines.at(-1), '2 passed, 2 failed');
  },
);

sideBySideTest(
  'Ctrl-C mid-run: the running file is stopped with its clean-ups, nothing is left, exit 130',
  async () => {
    const pidsFile = join(scratch, 'interrupted-pids');
    const cleaned = join(scratch, 'interrupted-cleaned-up');
    const child = spawnProcess(process.execPath, ['--import', 'tsx', 'test/run.ts', PASSES, HANGS], {
      env: { ...process.env, TEST_CONCURRENCY: '1', PIDS_FILE: pidsFile, CLEANED_UP_FILE: cleaned },
    });
    await waitFor(() => existsSync(pidsFile) && readFileSync(pidsFile, 'utf8'), { timeout: 60_000, what: 'pids' });
    const pids = pidsIn(pidsFile);
    leftover.push(...pids);
    child.signal('SIGINT');
    const code = await child.waitExit(30_000);
    const output = child.lines.join('\n');
    assert.is(code, 130, output);
    assert.match(output, `[1/2] ✔ ${PASSES}`);
    assert.match(output, `interrupted: stopped ${HANGS}; 0 not started`);
    assert.is(child.lines.at(-1), '1 passed, 0 failed');
    assert.equal(pids.filter(running), [], 'processes still running after Ctrl-C');
    assert.is(readFileSync(cleaned, 'utf8'), 'cleaned up', 'the clean-up it registered ran');
  },
);

sideBySideTest('--repeat N runs a file N times, each reported, then how many passed', async () => {
  const { code, lines } = await runner(['--repeat', '2', PASSES]);
  assert.is(code, 0);
  assert.ok(lines.some((line) => line.startsWith(`[1/2] ✔ ${PASSES} #1  1 passed`)));
  assert.ok(lines.some((line) => line.startsWith(`[2/2] ✔ ${PASSES} #2  1 passed`)));
  assert.ok(lines.includes(`${PASSES}: 2 of 2 runs passed`));
  assert.is(lines.at(-1), '2 passed, 0 failed');
});

for (const [args, said] of [
  [['--repeat', '0'], 'test/run.ts: --repeat expects a whole number of runs, at least 1, not "0"'],
  [['--repeat', 'x'], 'test/run.ts: --repeat expects a whole number of runs, at least 1, not "x"'],
  [['--nope'], `test/run.ts: Unknown option '--nope'; ${USAGE}`],
] as const) {
  sideBySideTest(`bad arguments (${args.join(' ')}): one line and exit code 2`, async () => {
    const { code, lines } = await runner([...args, PASSES]);
    assert.is(code, 2);
    assert.equal(lines.filter(Boolean), [said]);
  });
}

test.run();
