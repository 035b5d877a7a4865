// The --json result read back through its one type: what the smoke writes reads back whole, and anything else
// (missing, empty, truncated, another shape) is a one-line problem naming the file, never a result.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { createScratch } from '../test/support/scratch.ts';
import { toJson } from './reports.ts';
import { readSmokeResult, toSmokeResult } from './result.ts';
import { failingRun, passingRun } from '../test/support/smoke-summary.ts';

const scratch = createScratch('smoke-result-test-');
const { dir, file } = scratch;
test.after(scratch.remove);
const problemOf = async (path: string) => {
  const read = await readSmokeResult(path);
  assert.not.ok(read.ok, `${path} was read as a smoke result`);
  const { problem } = read as { problem: string };
  assert.ok(problem.includes(path), `the problem names the file: ${problem}`);
  assert.not.match(problem, /\n/, 'one line');
  return problem.replace(path, 'FILE');
};

test('what --json writes reads back as the same SmokeResult', async () => {
  for (const run of [failingRun, passingRun]) {
    assert.equal(await readSmokeResult(file(toJson(run))), { ok: true, result: toSmokeResult(run) });
  }
  const { probes } = toSmokeResult(failingRun);
  assert.is(probes[1]!.reason, 'HTTP 503 Service Unavailable; checks: database=disconnected');
  assert.is(probes[0]!.reason, null);
});

test('a pass after failed attempts is flaky, with what its last failed attempt said; a FAIL never is', () => {
  const passed = toSmokeResult(passingRun);
  assert.is(passed.flaky, 1);
  assert.equal(
    passed.probes.map((p) => [p.kind, p.attempts, p.flaky, p.flakyReason]),
    [
      ['HEALTH', 1, false, null],
      ['READY', 3, true, 'HTTP 503 Service Unavailable; checks: database=disconnected'],
      ['LOAD', 1, false, null],
    ],
  );
  const failed = toSmokeResult(failingRun);
  assert.is(failed.flaky, 0);
  assert.equal(failed.probes[1]!.attempts, 3);
  assert.is(failed.probes[1]!.flaky, false, 'a probe that gave up after 3 attempts is a FAIL, not flaky');
});

test('a file the smoke did not write: missing, empty, truncated', async () => {
  assert.is(await problemOf(join(dir, 'never-written.json')), "cannot read the smoke's result FILE: ENOENT");
  assert.is(await problemOf(file('')), "the smoke's result FILE is not JSON (it is empty)");
  const whole = toJson(failingRun);
  assert.match(await problemOf(file(whole.slice(0, whole.length / 2))), /^the smoke's result FILE is not JSON \(.+\)$/);
});

test('another shape is named by its first difference, never read as a result', async () => {
  const good = JSON.parse(toJson(failingRun));
  const cases: [unknown, string][] = [
    // The shapes the trailer used to accept besides the smoke's own: a bare list, passed/ok flags, error fields.
    [good.probes, 'FILE is not a smoke result: expected an object, found an array'],
    [{ probes: good.probes }, 'FILE is not a smoke result: result is missing, expected PASS or FAIL'],
    [{ ...good, result: 'ok' }, 'FILE is not a smoke result: result is "ok", expected PASS or FAIL'],
    [
      { ...good, probes: [{ kind: 'HEALTH', target: 'backend', passed: true }] },
      'FILE is not a smoke result: probes[0]: url is missing, expected a string',
    ],
    [
      { ...good, probes: [{ ...good.probes[0], kind: 'ready' }, ...good.probes.slice(1)] },
      'FILE is not a smoke result: probes[0]: kind is "ready", expected HEALTH, READY, LOAD',
    ],
    [
      { ...good, probes: [{ ...good.probes[1], reason: undefined, error: 'x' }] },
      'FILE is not a smoke result: probes[0]: reason is missing, expected a string or null',
    ],
    [
      { ...good, failed: 0 },
      'FILE is not a smoke result: counts do not add up (passed 2, failed 0, total 3, 3 probes)',
    ],
    [{ ...good, result: 'PASS' }, 'FILE is not a smoke result: result PASS with 1 failed'],
    [{ ...good, flaky: undefined }, 'FILE is not a smoke result: flaky is missing, expected a whole number'],
    [{ ...good, flaky: 1 }, 'FILE is not a smoke result: flaky is 1, but 0 probes are flaky'],
    [
      { ...good, probes: [{ ...good.probes[0], flaky: undefined }, ...good.probes.slice(1)] },
      'FILE is not a smoke result: probes[0]: flaky is missing, expected true or false',
    ],
    [
      { ...good, probes: [good.probes[0], { ...good.probes[1], flaky: true }, good.probes[2]] },
      'FILE is not a smoke result: probes[1]: flaky is true for a FAIL after 3 attempts',
    ],
    [
      { ...good, probes: [{ ...good.probes[0], flaky: true }, ...good.probes.slice(1)], flaky: 1 },
      'FILE is not a smoke result: probes[0]: flaky is true for a PASS after 1 attempts',
    ],
    [
      { ...good, probes: [{ ...good.probes[0], flakyReason: 'x' }, ...good.probes.slice(1)] },
      'FILE is not a smoke result: probes[0]: flakyReason is "x", expected null',
    ],
    [{ ...good, probes: [], total: 0, passed: 0, failed: 0 }, 'FILE is not a smoke result: no probes'],
    ['PASS', 'FILE is not a smoke result: expected an object, found "PASS"'],
  ];
  for (const [value, expected] of cases) assert.is(await problemOf(file(JSON.stringify(value))), expected);
});

test.run();
