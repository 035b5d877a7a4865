// The failure report: written beside the screenshot on a FAIL only, naming each failed probe's reason, the
// readiness checks, the body received and the screenshot; pointed to by the JSON result and the step summary.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScratch } from '../test/support/scratch.ts';
import { failureReport } from './failure-report.ts';
import { writeReports } from './reports.ts';
import { readSmokeResult } from './result.ts';
import type { SmokeSummary } from './types.ts';
import { failingRun, passingRun } from '../test/support/smoke-summary.ts';

const scratch = createScratch('smoke-failure-report-test-');
test.after(scratch.remove);

const body = '{"status":"not_ready","timestamp":"2025-01-02T03:04:05.000Z","checks":{"database":"disconnected"}}';
/** The backend not ready, as the probe saw it, and a page that failed to load with a console error. */
const broken: SmokeSummary = {
  ...failingRun,
  passed: 1,
  failed: 2,
  probes: [
    failingRun.probes[0]!,
    {
      ...failingRun.probes[1]!,
      url: 'http://ci:S3cret@b/api/ready',
      checks: { database: 'disconnected', devices: 'ok' },
      body: body.replace('disconnected"}', 'disconnected","uri":"mongodb://app:S3cret@db/x"}'),
    },
    {
      ...failingRun.probes[2]!,
      ok: false,
      reasons: ['HTTP 500 Internal Server Error'],
      screenshot: 'artifacts/frontend-fail.png',
      issues: ['console error: widget failed'],
    },
  ],
};

test('names each failed probe: its reason, the readiness checks, the body and the screenshot', () => {
  const md = failureReport(broken);
  const lines = md.split('\n');
  assert.is(lines[0], '# smoke: FAIL (2/3 failed)');
  assert.match(md, 'Screenshot: `frontend-fail.png`, beside this report.');
  assert.ok(lines.includes('## [READY] backend: FAIL'), md);
  assert.ok(
    lines.includes('- Reason: `HTTP 503 Service Unavailable; checks: database=disconnected` (after 3 attempts)'),
    md,
  );
  assert.ok(lines.includes('- Checks: `database = disconnected`, `devices = ok`'), md);
  assert.ok(lines.includes('```') && md.includes('"checks":{"database":"disconnected"'), md);
  assert.ok(lines.includes('## [LOAD] frontend: FAIL'), md);
  assert.ok(lines.includes('- Screenshot: `frontend-fail.png`'), md);
  assert.ok(lines.includes('  - `console error: widget failed`'), md);
  assert.not.ok(lines.includes('## [HEALTH] backend: FAIL'), 'a passing probe has no section');
});

test('a probe that passed only after a retry gets a section saying what its last failed attempt said', () => {
  const flaky = { ...broken.probes[0]!, attempts: 2, earlierFailure: ['HTTP 500 <b>boom</b>'] };
  const md = failureReport({ ...broken, probes: [flaky, ...broken.probes.slice(1)] });
  const lines = md.split('\n');
  assert.ok(lines.includes('## [HEALTH] backend: PASS after 2 attempts'), md);
  assert.ok(lines.includes('- Attempt 1 failed: `HTTP 500 <b>boom</b>`'), md);
  assert.not.match(failureReport(broken), 'PASS after', 'no section without a retry');
});

test('a body holding backticks cannot close its code block early', () => {
  const md = failureReport({ ...broken, probes: [{ ...broken.probes[1]!, body: 'a ``` b ```` c' }] });
  assert.match(md, /\n`````\na ``` b ```` c\n`````\n/);
});

test('writeReports on a FAIL: smoke-report.md beside the screenshots, named in the JSON and step summary', async () => {
  const artifacts = scratch.dir;
  const json = join(artifacts, 'out/r.json');
  const stepSummary = join(artifacts, 'summary.md');
  await writeReports(broken, { json, junit: null, artifacts }, { GITHUB_STEP_SUMMARY: stepSummary }, () => {});
  const path = join(artifacts, 'smoke-report.md');
  const report = readFileSync(path, 'utf8');
  assert.match(report, '- Checks: `database = disconnected`, `devices = ok`');
  assert.not.match(report, /S3cret/, 'credentials in URLs are redacted in the report');
  assert.match(report, 'mongodb://app:***@db/x');
  const read = await readSmokeResult(json);
  assert.ok(read.ok, JSON.stringify(read));
  const result = read.ok ? read.result : undefined;
  assert.is(result?.report, path);
  assert.equal(result?.probes[1]?.checks, { database: 'disconnected', devices: 'ok' });
  assert.match(result?.probes[1]?.body ?? '', '"database":"disconnected"');
  assert.is(result?.probes[2]?.screenshot, 'artifacts/frontend-fail.png');
  assert.match(readFileSync(stepSummary, 'utf8'), `Failure report: [smoke-report.md](${path})`);
});

test('writeReports on a PASS: no report, and the JSON result says so', async () => {
  const artifacts = join(scratch.dir, 'pass');
  const json = join(artifacts, 'r.json');
  await writeReports(passingRun, { json, junit: null, artifacts }, {}, () => {});
  assert.not.ok(existsSync(join(artifacts, 'smoke-report.md')));
  const read = await readSmokeResult(json);
  assert.is(read.ok && read.result.report, null);
});

test('a report that cannot be written is a warning; the run goes on and its JSON says there is none', async () => {
  const json = join(scratch.dir, 'nowhere.json');
  const warnings: string[] = [];
  const missing = join(scratch.dir, 'no-such-dir');
  await writeReports(broken, { json, junit: null, artifacts: missing }, {}, (line) => warnings.push(line));
  assert.equal(warnings, [
    `smoke: warning: cannot write ${join(missing, 'smoke-report.md')}: ` +
      'ENOENT, no such directory, and it cannot be created there',
  ]);
  const read = await readSmokeResult(json);
  assert.is(read.ok && read.result.report, null);
});

test.run();
