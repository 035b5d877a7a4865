// Each claim a trailer makes, held against a hand-made note that says otherwise: the first disagreement is named;
// a note that agrees with every claim passes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { passingRun, failingRun } from '../../test/support/smoke-summary.ts';
import { toSmokeResult } from '../result.ts';
import { claimProblem, CLOCK_SKEW_MS } from './claims.ts';
import { EVIDENCE_FORMAT, type SmokeEvidence } from './evidence-note.ts';
import { boundDetail, formatTrailer, parseTrailer, passDetail } from './line.ts';

const TREE = 'ab'.repeat(20);
const AT = '2026-03-04T05:06:07.000Z';
const times = { committed: Date.parse(AT) + 60_000, parentCommitted: Date.parse(AT) - 3_600_000 };
const firstTry = passingRun.probes.map(({ earlierFailure: _, ...probe }) => ({ ...probe, attempts: 1 }));
const trailer = (verdict: 'PASS' | 'FAIL', what: string, baseline?: string) =>
  parseTrailer(formatTrailer({ verdict, detail: boundDetail(TREE.slice(0, 12), what, baseline) }))!;

/** A PASS record that agrees with `3/3 probes against docker compose`, with `change` applied. */
function note(change: Partial<SmokeEvidence> = {}): SmokeEvidence {
  return {
    format: EVIDENCE_FORMAT,
    tree: TREE,
    verdict: 'PASS',
    trailer: '',
    runtime: 'docker',
    at: AT,
    composeConfig: `sha256:${'c'.repeat(64)}`,
    images: { backend: 'sha256:11' },
    smoke: toSmokeResult({ ...passingRun, probes: firstTry, startedAt: '2026-03-04T05:06:37.000Z' }),
    baseline: null,
    ...change,
  };
}
const pass = trailer('PASS', passDetail(3, 'docker'));
const problem = (change: Partial<SmokeEvidence>, line = pass) => claimProblem(line, note(change), times);

test('a note that agrees with every claim', () => {
  assert.is(claimProblem(pass, note(), times), undefined);
  assert.is(claimProblem(pass, note(), { committed: times.committed }), undefined, 'a root commit');
});

test('the probe count, each probe passing, and the retries', () => {
  const smoke = note().smoke!;
  const one = { ...smoke, passed: 1, total: 1, probes: smoke.probes.slice(0, 1) };
  assert.is(problem({ smoke: one }), 'the trailer claims 3 probes, its evidence 1');
  assert.is(problem({ smoke: null }), 'the trailer claims a smoke, its evidence holds none');
  const failed = toSmokeResult({ ...failingRun, startedAt: smoke.startedAt });
  assert.is(problem({ smoke: failed }), 'the trailer claims every probe passed, its evidence has [READY] backend FAIL');
  const retried = toSmokeResult({ ...passingRun, startedAt: smoke.startedAt });
  assert.is(problem({ smoke: retried }), 'the trailer claims 0 after a retry, its evidence 1');
  assert.is(problem({ smoke: retried }, trailer('PASS', passDetail(3, 'docker', 1))), undefined);
});

test('the runtime, and that compose ran: a digest of its configuration and the images', () => {
  assert.is(problem({ runtime: 'none' }), 'its evidence names runtime "none", not docker or podman');
  assert.is(problem({ runtime: 'podman' }), 'the trailer says docker compose, its evidence ran podman');
  const noDigest = 'the trailer claims a compose stack, its evidence has no digest of its configuration';
  assert.is(problem({ composeConfig: null }), noDigest);
  assert.is(problem({ composeConfig: 'sha256:00' }), noDigest);
  assert.is(problem({ images: {} }), 'the trailer claims a compose stack, its evidence names no image');
});

test('a plausible time: ISO 8601, after the parent, before the commit, the smoke in between', () => {
  assert.is(problem({ at: 'never' }), 'its evidence\'s time "never" is not an ISO 8601 time');
  assert.is(problem({ at: '2026-03-04' }), 'its evidence\'s time "2026-03-04" is not an ISO 8601 time');
  const late = new Date(times.committed + CLOCK_SKEW_MS + 1000).toISOString();
  assert.is(problem({ at: late }), `its evidence is of ${late}, after the commit was made`);
  const early = new Date(times.parentCommitted - CLOCK_SKEW_MS - 1000).toISOString();
  assert.is(problem({ at: early }), `its evidence is of ${early}, before the commit's parent was made`);
  const skewed = new Date(times.committed + CLOCK_SKEW_MS - 1000).toISOString();
  assert.is(problem({ at: skewed, smoke: { ...note().smoke!, startedAt: skewed } }), undefined, 'clocks a bit off');
  const smoke = { ...note().smoke!, startedAt: '2020-01-01T00:00:00.000Z' };
  assert.is(
    problem({ smoke }),
    `its smoke started at "2020-01-01T00:00:00.000Z", not between the evidence's ${AT} and the commit`,
  );
});

test('a FAIL: its baseline and its first failing probe', () => {
  const smoke = toSmokeResult({ ...failingRun, startedAt: '2026-03-04T05:06:37.000Z' });
  const baseline = { parent: null, tree: null, verdict: 'PASS' as const, source: 'evidence' as const };
  const failed = note({ verdict: 'FAIL', smoke, baseline: { ...baseline, phrase: 'parent passed' } });
  const line = trailer('FAIL', '[READY] backend: database disconnected', 'parent passed');
  assert.is(claimProblem(line, failed, times), undefined);
  const other = trailer('FAIL', '[READY] backend: database disconnected', 'parent failed too');
  assert.is(
    claimProblem(other, failed, times),
    'the trailer says "parent failed too" of the parent, its evidence "parent passed"',
  );
  const wrongProbe = trailer('FAIL', '[LOAD] frontend: HTTP 500', 'parent passed');
  assert.is(
    claimProblem(wrongProbe, failed, times),
    'the trailer names [LOAD] frontend failing first, its evidence [READY] backend',
  );
  const noSmoke = { ...failed, smoke: null };
  assert.is(
    claimProblem(line, noSmoke, times),
    'the trailer names [READY] backend failing, its evidence no failed probe',
  );
});

test('the clock skew is five minutes, and each bound of the time holds up to it exactly', () => {
  assert.is(CLOCK_SKEW_MS, 5 * 60_000);
  const iso = (ms: number) => new Date(ms).toISOString();
  const at = (ms: number) => ({ at: iso(ms), smoke: { ...note().smoke!, startedAt: iso(ms) } });
  assert.is(problem(at(times.committed + CLOCK_SKEW_MS)), undefined, 'at the commit plus the skew');
  assert.is(problem(at(times.parentCommitted - CLOCK_SKEW_MS)), undefined, 'at the parent less the skew');
  assert.is(problem(at(times.parentCommitted - 1000)), undefined, 'a second before the parent');
  const smokedAt = (ms: number) => problem({ smoke: { ...note().smoke!, startedAt: iso(ms) } });
  assert.is(smokedAt(Date.parse(AT) - CLOCK_SKEW_MS), undefined, 'the smoke at the evidence less the skew');
  assert.is(smokedAt(times.committed + CLOCK_SKEW_MS), undefined, 'the smoke at the commit plus the skew');
  const late = iso(times.committed + CLOCK_SKEW_MS + 1000);
  assert.is(
    smokedAt(Date.parse(late)),
    `its smoke started at "${late}", not between the evidence's ${AT} and the commit`,
  );
});

test('times: whole seconds pass; an extended year or a digest with more around it does not', () => {
  const whole = '2026-03-04T05:06:07Z';
  assert.is(problem({ at: whole, smoke: { ...note().smoke!, startedAt: whole } }), undefined);
  // Date.parse reads `+002026-…` as a time; the evidence's format is the plain one only.
  assert.is(problem({ at: `+00${AT}` }), `its evidence's time "+00${AT}" is not an ISO 8601 time`);
  const noDigest = 'the trailer claims a compose stack, its evidence has no digest of its configuration';
  assert.is(problem({ composeConfig: `xsha256:${'c'.repeat(64)}` }), noDigest);
  assert.is(problem({ composeConfig: `sha256:${'c'.repeat(65)}` }), noDigest);
});

test("a FAIL: the first failing probe is named by kind and target both; a detail naming none isn't held", () => {
  const smoke = toSmokeResult({ ...failingRun, startedAt: '2026-03-04T05:06:37.000Z' });
  const baseline = { parent: null, tree: null, verdict: 'PASS' as const, source: 'evidence' as const };
  const failed = note({ verdict: 'FAIL', smoke, baseline: { ...baseline, phrase: 'parent passed' } });
  const line = (what: string) => trailer('FAIL', what, 'parent passed');
  assert.is(
    claimProblem(line('[READY] device: serial unplugged'), failed, times),
    'the trailer names [READY] device failing first, its evidence [READY] backend',
  );
  assert.is(
    claimProblem(line('[HEALTH] backend: HTTP 500'), failed, times),
    'the trailer names [HEALTH] backend failing first, its evidence [READY] backend',
  );
  assert.is(claimProblem(line('compose up failed: port in use'), failed, times), undefined);
  const unsmoked = { ...failed, smoke: null };
  assert.is(claimProblem(line('compose up failed: port in use'), unsmoked, times), undefined, 'no smoke ran: no time');
  assert.is(claimProblem(line('then [LOAD] frontend: HTTP 500'), failed, times), undefined, 'named only at the start');
});

test("a FAIL's baseline: none on either side agrees; one side without it says nothing; brackets are dropped", () => {
  const smoke = toSmokeResult({ ...failingRun, startedAt: '2026-03-04T05:06:37.000Z' });
  const what = '[READY] backend: database disconnected';
  const none = note({ verdict: 'FAIL', smoke, baseline: null });
  assert.is(claimProblem(trailer('FAIL', what), none, times), undefined);
  assert.is(
    claimProblem(trailer('FAIL', what, 'parent passed'), none, times),
    'the trailer says "parent passed" of the parent, its evidence nothing',
  );
  const known = { parent: null, tree: null, verdict: null, source: 'none' as const };
  const unsmoked = note({ verdict: 'FAIL', smoke, baseline: { ...known, phrase: 'parent not smoked (no evidence)' } });
  assert.is(claimProblem(trailer('FAIL', what, 'parent not smoked (no evidence)'), unsmoked, times), undefined);
});

test.run();
