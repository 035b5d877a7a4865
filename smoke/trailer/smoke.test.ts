// What the trailer makes of a smoke run: its exit code and the result it wrote with --json, read through the one
// SmokeResult type. The lines it printed for people play no part, so rewording them changes nothing; a result file
// the smoke did not write is FAIL or an ERROR (SKIPPED in the trailer), never a PASS, and one line naming the file.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { createScratch } from '../../test/support/scratch.ts';
import { createColors } from '../color.ts';
import { detailLines, finalLine, probeLine } from '../format.ts';
import { toJson } from '../reports.ts';
import { readSmokeResult, toSmokeResult } from '../result.ts';
import type { SmokeSummary } from '../types.ts';
import { failingRun, passingRun } from '../../test/support/smoke-summary.ts';
import type { CommandResult } from '../../tools/child-process.ts';
import { smokeOutcome } from './smoke.ts';

const scratch = createScratch('trailer-smoke-test-');
const { dir, file } = scratch;
test.after(scratch.remove);
const exited = (code: number | null, stdout = '', stderr = ''): CommandResult => ({
  code,
  stdout,
  stderr,
  missing: false,
  truncated: false,
  timedOut: false,
});
/** What the smoke printed for a run, each line passed through `reword`. */
const printed = (run: SmokeSummary, reword: (line: string) => string = (line) => line) => {
  const c = createColors(false);
  const lines = run.probes.flatMap((probe) => [probeLine(probe, c), ...detailLines(probe, c)]);
  return [...lines, finalLine(run, c)].map(reword).join('\n');
};
const outcomeOf = async (code: number, stdout: string, path: string) =>
  smokeOutcome(exited(code, stdout), await readSmokeResult(path), 60_000);

// Every printed line reworded: other verdict words, another separator, another final line.
const reworded = (line: string) =>
  line
    .replace(' ... ', ' → ')
    .replace(/\bPASS\b/, 'ok')
    .replace(/\bFAIL\b/, 'not ok')
    .replace(/^smoke: .*$/, 'verdict: see the result file');

test('a printed line reworded: the same outcome, read from the result file', async () => {
  const failing = file(toJson(failingRun));
  const expected = {
    result: 'FAIL',
    first: '[READY] backend: HTTP 503 Service Unavailable; checks: database=disconnected',
    counts: { failed: 1, total: 3 },
    failing: [toSmokeResult(failingRun).probes[1]],
    report: null,
    record: JSON.parse(toJson(failingRun)),
  };
  assert.equal(await outcomeOf(1, printed(failingRun), failing), expected);
  assert.equal(await outcomeOf(1, printed(failingRun, reworded), failing), expected);
  assert.match(printed(failingRun, reworded), /\[READY\] backend → not ok/, 'the lines were reworded');
  const passing = file(toJson(passingRun));
  const passed = { result: 'PASS', total: 3, retried: 1, record: JSON.parse(toJson(passingRun)) };
  assert.equal(await outcomeOf(0, printed(passingRun, reworded), passing), passed);
  assert.equal(await outcomeOf(0, '', passing), passed, 'nothing printed at all');
});

test('a PASS counts the probes that passed only after a failed attempt, not the failed ones', async () => {
  const probes = passingRun.probes.map((probe, i) => ({ ...probe, attempts: i === 0 ? 3 : 1 }));
  const retried = file(toJson({ ...passingRun, probes }));
  const outcome = await outcomeOf(0, '', retried);
  assert.is(outcome.result === 'PASS' && outcome.retried, 1);
  const failed = file(toJson({ ...failingRun, probes: failingRun.probes.map((p) => ({ ...p, attempts: 2 })) }));
  assert.is((await outcomeOf(1, '', failed)).result, 'FAIL');
});

test('a result file the smoke did not write: FAIL after exit 1, ERROR after exit 0, never PASS', async () => {
  const whole = toJson(passingRun);
  const bad = {
    missing: join(dir, 'never-written.json'),
    empty: file(''),
    truncated: file(whole.slice(0, whole.length - 40)),
    'another shape': file(JSON.stringify([{ kind: 'HEALTH', target: 'backend', result: 'PASS' }])),
    'passed flags': file(JSON.stringify({ probes: [{ kind: 'HEALTH', target: 'backend', passed: true }] })),
  };
  for (const [what, path] of Object.entries(bad)) {
    for (const code of [0, 1]) {
      const outcome = await outcomeOf(code, printed(passingRun), path);
      const line = outcome.result === 'ERROR' ? outcome.problem : outcome.result === 'FAIL' ? outcome.first : '';
      assert.is(outcome.result, code === 0 ? 'ERROR' : 'FAIL', `${what}, exit ${code}`);
      assert.ok(line.includes(path), `${what}, exit ${code}: names the file: ${line}`);
      assert.match(line, new RegExp(`^smoke exited ${code}`), `${what}: says what the smoke did`);
      assert.not.match(line, /\n|\bat .+:\d+:\d+/, `${what}: one line, no stack trace`);
    }
  }
});

test('a result at odds with the exit code is not believed', async () => {
  const failing = file(toJson(failingRun));
  const passing = file(toJson(passingRun));
  assert.equal(await outcomeOf(0, '', failing), {
    result: 'ERROR',
    problem: 'smoke exited 0, but its result says FAIL (1/3 failed)',
  });
  assert.equal(await outcomeOf(1, '', passing), {
    result: 'FAIL',
    first: 'smoke exited 1, but its result says PASS (0/3 failed)',
  });
});

test('a smoke that could not run: its last line of complaint, whatever file is there', async () => {
  const passing = file(toJson(passingRun));
  const run = exited(2, '', 'smoke: no Chromium found (looked in /usr/bin/chromium, ...); install Chromium\n');
  assert.equal(smokeOutcome(run, await readSmokeResult(passing), 60_000), {
    result: 'ERROR',
    problem:
      'smoke could not run (exit 2): smoke: no Chromium found (looked in /usr/bin/chromium, ...); install Chromium',
  });
  const killed = { ...exited(null), timedOut: true };
  assert.equal(smokeOutcome(killed, undefined, 60_000), {
    result: 'ERROR',
    problem: 'smoke could not run: smoke gave no answer within 60 s',
  });
});

test('a FAIL names the checks that are not fine as its cause, and carries the report of the smoke', async () => {
  const ready = failingRun.probes[1]!;
  const checks = { database: 'disconnected', devices: 'ok', cache: 'starting' };
  const run = { ...failingRun, probes: failingRun.probes.map((p) => (p === ready ? { ...ready, checks } : p)) };
  const outcome = await outcomeOf(1, '', file(toJson(run, '/a/smoke-report.md')));
  assert.is(outcome.result === 'FAIL' && outcome.first, '[READY] backend: database disconnected, cache starting');
  assert.is(outcome.result === 'FAIL' && outcome.report, '/a/smoke-report.md');
  // Checks that are all fine name no cause: the reason does (a body of the wrong service, say).
  const fine = {
    ...run,
    probes: run.probes.map((p) => (p.kind === 'READY' ? { ...p, checks: { serial: 'open' } } : p)),
  };
  const named = await outcomeOf(1, '', file(toJson(fine)));
  assert.is(
    named.result === 'FAIL' && named.first,
    '[READY] backend: HTTP 503 Service Unavailable; checks: database=disconnected',
  );
});

test.run();
