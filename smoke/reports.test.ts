// --json, --junit and the step summary, parsed back; writing to a bad path is a run error.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkReportPaths, toJson, toJunit, toStepSummary, writeReports } from './reports.ts';
import { CLIError } from '../tools/cli-error.ts';
import type { SmokeSummary } from './types.ts';
import { failingRun, passingRun } from '../test/support/smoke-summary.ts';

const dir = mkdtempSync(join(tmpdir(), 'smoke-reports-test-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const summary = failingRun;

// A URL's password and secret query values never reach a file the workflows upload as an artifact.
const secretive: SmokeSummary = {
  ...summary,
  probes: [
    {
      kind: 'READY',
      target: 'backend',
      url: 'http://ci:S3cret@b/api/ready',
      ok: false,
      ms: 6,
      reasons: ['redirected elsewhere: HTTP 302 to http://ci:S3cret@b/login?session_token=T0k; then gave up'],
      attempts: 1,
    },
    {
      kind: 'LOAD',
      target: 'frontend',
      url: 'http://f/?access_token=T0k',
      ok: false,
      ms: 700,
      reasons: ['net::ERR_CONNECTION_REFUSED at http://f/?access_token=T0k'],
      attempts: 1,
      screenshot: null,
      issues: ['request failed: GET http://f/app.js?sig=T0k net::ERR_FAILED'],
    },
  ],
};

test('JSON, JUnit and the step summary show URLs with *** for their credentials, in url, reasons and issues', () => {
  for (const text of [toJson(secretive), toJunit(secretive), toStepSummary(secretive)]) {
    assert.not.match(text, /S3cret|T0k/, text);
  }
  const parsed = JSON.parse(toJson(secretive));
  assert.equal(
    parsed.probes.map((p: { url: string }) => p.url),
    ['http://ci:***@b/api/ready', 'http://f/?access_token=***'],
  );
  assert.is(
    parsed.probes[0].reason,
    'redirected elsewhere: HTTP 302 to http://ci:***@b/login?session_token=***; then gave up',
  );
  assert.equal(parsed.probes[1].issues, ['request failed: GET http://f/app.js?sig=*** net::ERR_FAILED']);
  assert.match(toJunit(secretive), 'url: http://f/?access_token=***');
});

test('JSON: every probe with kind, target, url, result, ms, reason', () => {
  const parsed = JSON.parse(toJson(summary));
  assert.equal(
    { result: parsed.result, passed: parsed.passed, failed: parsed.failed, total: parsed.total, ms: parsed.ms },
    { result: 'FAIL', passed: 2, failed: 1, total: 3, ms: 1234 },
  );
  assert.equal(parsed.probes[1], {
    kind: 'READY',
    target: 'backend',
    url: 'http://b/api/ready',
    result: 'FAIL',
    ms: 6,
    reason: 'HTTP 503 Service Unavailable; checks: database=disconnected',
    reasons: ['HTTP 503 Service Unavailable', 'checks: database=disconnected'],
    attempts: 3,
    flaky: false,
    flakyReason: null,
    checks: null,
    failing: null,
    body: null,
  });
  assert.is(parsed.probes[0].reason, null);
  assert.is(parsed.probes[0].version, null, 'HEALTH: the release that answered, null when none was reported');
  assert.is(parsed.expectVersion, null);
  assert.is(parsed.probes[2].screenshot, 'a/frontend-ok.png');
  assert.equal(parsed.probes[2].issues, ['console error: "x" | <y> & \u0007']);
});

test('JSON: the release expected, the release that answered, and the checks the service flags', () => {
  const [health, ready] = summary.probes;
  const run: SmokeSummary = {
    ...summary,
    expectVersion: 'v2',
    probes: [
      { ...health!, ok: false, version: 'v1', reasons: ['answered by release v1, expected v2'] },
      { ...ready!, checks: { spool: 'writable', backend: 'unauthorized' }, failing: ['backend'] },
      summary.probes[2]!,
    ],
  };
  const parsed = JSON.parse(toJson(run));
  assert.is(parsed.expectVersion, 'v2');
  assert.is(parsed.probes[0].version, 'v1');
  assert.is(parsed.probes[0].reason, 'answered by release v1, expected v2');
  assert.equal(parsed.probes[1].failing, ['backend']);
  assert.not.ok('version' in parsed.probes[1], 'version is HEALTH only');
  assert.not.ok('failing' in parsed.probes[0], 'failing is READY only');
});

test('JUnit: one testcase per probe, failures carry the reason, text is escaped', () => {
  const xml = toJunit(summary);
  assert.match(
    xml,
    '<testsuite name="smoke" tests="3" failures="1" errors="0" time="1.234" timestamp="2025-01-02T03:04:05.000Z">',
  );
  assert.is(xml.match(/<testcase /g)?.length, 3);
  assert.match(xml, '<testcase classname="smoke.backend" name="HEALTH backend" time="0.005"/>');
  assert.match(xml, '<failure message="HTTP 503 Service Unavailable; checks: database=disconnected">');
  assert.not.match(xml, '\u0007');
  assert.not.match(xml, '<y>');
});

test('a pass after a retry: flaky in JSON, a flakyFailure in JUnit (as Surefire), marked in the summary', () => {
  const parsed = JSON.parse(toJson(passingRun));
  assert.equal([parsed.result, parsed.passed, parsed.flaky], ['PASS', 3, 1]);
  assert.equal([parsed.probes[1].flaky, parsed.probes[1].attempts], [true, 3]);
  const xml = toJunit(passingRun);
  assert.match(xml, '<testsuite name="smoke" tests="3" failures="0" errors="0"');
  assert.is(xml.match(/<flakyFailure /g)?.length, 1);
  assert.match(
    xml,
    '  <testcase classname="smoke.backend" name="READY backend" time="0.006">\n' +
      '    <flakyFailure message="HTTP 503 Service Unavailable; checks: database=disconnected" type="smoke.retry">' +
      '<stackTrace>attempt 2 failed: HTTP 503 Service Unavailable; checks: database=disconnected\n' +
      'url: http://b/api/ready</stackTrace></flakyFailure>\n  </testcase>',
  );
  assert.not.match(xml, '<failure');
  const md = toStepSummary(passingRun);
  assert.ok(md.startsWith('### smoke: PASS (3/3)\n'), 'the verdict count stays as the last line has it');
  assert.match(md, '| READY | backend | ⚠️ PASS after 3 attempts | 6 | `attempt 2 failed: HTTP 503');
  assert.match(md, '\n1 of 3 probes passed only after a retry.\n');
  assert.not.match(toStepSummary(summary), 'only after a retry');
});

test('step summary: a heading with the final verdict and one table row per probe', () => {
  const md = toStepSummary(summary);
  const lines = md.trim().split('\n');
  assert.is(lines[0], '### smoke: FAIL (1/3 failed)');
  assert.is(lines.filter((l) => l.startsWith('| ')).length, 4);
  assert.ok(
    lines.includes('| READY | backend | ❌ FAIL | 6 | `HTTP 503 Service Unavailable; checks: database=disconnected` |'),
  );
  // In code, so nothing in it is read as markdown or HTML; a pipe in a cell would break the table; BEL is shown.
  assert.match(md, '`console error: "x" \\| <y> & \\x07`');
});

test('writeReports writes both files and appends (not overwrites) the step summary', async () => {
  const json = join(dir, 'out/r.json');
  const junit = join(dir, 'out/r.xml');
  const stepSummary = join(dir, 'summary.md');
  writeFileSync(stepSummary, 'earlier step\n');
  const warnings: string[] = [];
  await writeReports(summary, { json, junit, artifacts: dir }, { GITHUB_STEP_SUMMARY: stepSummary }, (l) =>
    warnings.push(l),
  );
  assert.is(JSON.parse(readFileSync(json, 'utf8')).total, 3);
  assert.match(readFileSync(junit, 'utf8'), '<testsuite name="smoke"');
  assert.ok(readFileSync(stepSummary, 'utf8').startsWith('earlier step\n### smoke: FAIL'));
  assert.equal(warnings, []);
});

test('an unwritable --json is a CLIError; an unwritable step summary only warns', async () => {
  writeFileSync(join(dir, 'file'), '');
  const error = await writeReports(
    summary,
    { json: join(dir, 'file/r.json'), junit: null, artifacts: dir },
    {},
    () => {},
  ).catch((e) => e);
  assert.instance(error, CLIError);
  assert.is(error.message, `cannot write --json ${join(dir, 'file/r.json')}: EEXIST, a file is in the way`);
  const warnings: string[] = [];
  await writeReports(
    summary,
    { json: null, junit: null, artifacts: dir },
    { GITHUB_STEP_SUMMARY: join(dir, 'file/x.md') },
    (l) => warnings.push(l),
  );
  assert.is(warnings.length, 1);
  assert.is(
    warnings[0],
    `smoke: warning: cannot append to GITHUB_STEP_SUMMARY ${join(dir, 'file/x.md')}: ENOTDIR, a file is in the way`,
  );
});

test('the up-front check writes no bytes: a file that refuses writes fails it; files stay as found', async () => {
  const refused = (json: string) =>
    checkReportPaths({ json, junit: null }).then(
      () => null,
      (e: Error) => e.message,
    );
  const root = process.getuid?.() === 0;
  assert.is(
    await refused('/proc/version'),
    `cannot write --json /proc/version: ${root ? 'EIO, input/output error' : 'EACCES, permission denied'}`,
  );
  assert.is(await refused('/dev/full'), 'cannot write --json /dev/full: ENOSPC, no space left on the device');
  writeFileSync(join(dir, 'kept.json'), 'last run');
  symlinkSync(join(dir, 'target.json'), join(dir, 'link.json'));
  await checkReportPaths({ json: join(dir, 'kept.json'), junit: join(dir, 'link.json') });
  assert.is(readFileSync(join(dir, 'kept.json'), 'utf8'), 'last run');
  assert.ok(lstatSync(join(dir, 'link.json')).isSymbolicLink(), 'a link to a file not there yet stays a link');
  assert.not.ok(existsSync(join(dir, 'target.json')), 'nor is its target left behind');
});

test.run();
