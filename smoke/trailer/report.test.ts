// Reading the smoke CLI's output: probe lines with their indented reasons, the verdict line, and the --json file.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { describeProbe, firstFailure, parseSmokeJson, parseSmokeLines } from './report.ts';

const failing = `[HEALTH] backend ... PASS (12ms)
[READY] backend ... FAIL (8ms)
    HTTP 503 from http://127.0.0.1:3001/api/ready
    checks.database=disconnected
[LOAD] frontend ... FAIL (900ms) screenshot=frontend-fail.png
  connection refused
backend | a log line that is not a reason
smoke: FAIL (2/3 failed)
`;

test('reads probes, their indented reasons and the FAIL verdict', () => {
  const report = parseSmokeLines(failing);
  assert.equal(report.verdict, { pass: false, failed: 2, total: 3 });
  assert.equal(
    report.probes.map((p) => [p.kind, p.target, p.passed]),
    [
      ['HEALTH', 'backend', true],
      ['READY', 'backend', false],
      ['LOAD', 'frontend', false],
    ],
  );
  assert.is(
    describeProbe(firstFailure(report.probes)!),
    '[READY] backend: HTTP 503 from http://127.0.0.1:3001/api/ready; checks.database=disconnected',
  );
  assert.is(report.probes[2]!.reason, 'connection refused');
});

test('reads the PASS verdict among other output', () => {
  const report = parseSmokeLines(
    'stack: all ready\n[HEALTH] backend ... PASS (3ms)\nsmoke: PASS (5/5)\nstack: running\n',
  );
  assert.equal(report.verdict, { pass: true, failed: 0, total: 5 });
  assert.is(firstFailure(report.probes), undefined);
});

test('no verdict line: no verdict', () => {
  assert.is(parseSmokeLines('smoke: unexpected error: no Chromium found\n').verdict, undefined);
});

test('reads the --json file as an array or as { probes }', () => {
  const probes = [
    { kind: 'HEALTH', target: 'backend', url: 'http://x/api/health', result: 'PASS', ms: 3 },
    {
      kind: 'ready',
      target: 'device',
      url: 'http://y/api/ready',
      result: 'FAIL',
      ms: 4,
      reason: 'HTTP 503 checks.backend=disconnected',
    },
  ];
  for (const value of [probes, { probes }]) {
    const parsed = parseSmokeJson(value)!;
    assert.is(parsed.length, 2);
    assert.is(describeProbe(firstFailure(parsed)!), '[READY] device: HTTP 503 checks.backend=disconnected');
  }
  assert.is(parseSmokeJson({ nothing: true }), undefined);
  assert.is(
    describeProbe({ kind: 'LOAD', target: 'frontend', passed: false }),
    '[LOAD] frontend: failed (no reason given)',
  );
});

test.run();
