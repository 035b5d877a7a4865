// `verify` against real git repositories: a trailer bound to its commit's tree with evidence that agrees is 0;
// no evidence, evidence for another tree, a hand-edited trailer are 1; what it cannot see (no repository, no such
// commit, a shallow clone's missing history, no notes fetched) is 2. A root commit and a detached HEAD verify.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRepo, type TestRepo } from '../../test/support/git-repo.ts';
import { failingRun, passingRun } from '../../test/support/smoke-summary.ts';
import { toSmokeResult } from '../result.ts';
import { EVIDENCE_FORMAT, MAX_NOTE_BYTES, NOTES_REF, writeEvidence, type SmokeEvidence } from './evidence-note.ts';
import { boundDetail, formatTrailer, passDetail, type TrailerVerdict } from './line.ts';
import { createGit, indexTree } from './tree.ts';
import { verifyCommit } from './verify.ts';

const test = suite('verify');
let repo: TestRepo;
test.before(async () => {
  repo = await createRepo('trailer-verify-');
});
test.after(() => repo.remove());

const short = (tree: string) => tree.slice(0, 12);
const lineFor = (tree: string, verdict: TrailerVerdict, what = passDetail(3, 'docker')) =>
  formatTrailer({ verdict, detail: boundDetail(short(tree), what) });

/** A record that agrees with `lineFor(tree, verdict)`: made now, 3 probes passing at the first attempt. */
function record(tree: string, verdict: 'PASS' | 'FAIL', trailer = lineFor(tree, verdict)): SmokeEvidence {
  const at = new Date().toISOString();
  const firstTry = passingRun.probes.map(({ earlierFailure: _, ...probe }) => ({ ...probe, attempts: 1 }));
  const run = verdict === 'PASS' ? { ...passingRun, probes: firstTry } : failingRun;
  return {
    format: EVIDENCE_FORMAT,
    tree,
    verdict,
    trailer,
    runtime: 'docker',
    at,
    composeConfig: `sha256:${'0'.repeat(64)}`,
    images: { backend: 'sha256:11', frontend: 'sha256:22' },
    smoke: toSmokeResult({ ...run, startedAt: at }),
    baseline: null,
  };
}

/** Stages `files`, smokes nothing, notes `evidence(tree)` when given, commits with `trailer(tree)`. */
async function smokedCommit(
  files: Record<string, string>,
  trailer: (tree: string) => string,
  evidence?: (tree: string) => SmokeEvidence,
) {
  await repo.stage(files);
  const named = await indexTree(repo.handle);
  assert.ok(named.ok);
  const tree = (named as { tree: string }).tree;
  if (evidence) assert.is(await writeEvidence(repo.handle, evidence(tree)), undefined);
  const commit = await repo.commit(`Change ${Object.keys(files).join(', ')}\n\nWhy.\n\n${trailer(tree)}`);
  return { commit, tree };
}

const verify = (rev: string, git = repo.handle) => verifyCommit(git, rev);

test('no notes fetched at all: it cannot tell (2), and says how to fetch them', async () => {
  const { commit } = await smokedCommit({ 'a.txt': 'a' }, (tree) => lineFor(tree, 'PASS'));
  const verdict = await verify(commit);
  assert.is(verdict.code, 2, verdict.line);
  assert.match(verdict.line, /no smoke evidence in this repository \(no refs\/notes\/smoke\) \(fetch it: git fetch/);
});

test('a root commit with its trailer and evidence: 0', async () => {
  const root = await repo.git(['rev-list', '--max-parents=0', 'HEAD']);
  const tree = await repo.git(['rev-parse', 'HEAD^{tree}']);
  assert.is(await writeEvidence(repo.handle, record(tree, 'PASS')), undefined);
  const verdict = await verify(root);
  assert.is(verdict.code, 0, verdict.line);
  assert.match(verdict.line, new RegExp(`^commit ${short(root)}: PASS on tree ${short(tree)}, evidence of 20\\d\\d-`));
  assert.is((await verify('HEAD')).code, 0, 'HEAD is that commit');
});

test('a commit without evidence: 1', async () => {
  const { commit, tree } = await smokedCommit({ 'b.txt': 'b' }, (t) => lineFor(t, 'PASS'));
  assert.equal(await verify(commit), {
    code: 1,
    line: `commit ${short(commit)}: no smoke evidence for tree ${short(tree)}`,
  });
});

test("a trailer smoked on another tree than the commit's: 1", async () => {
  const { tree: smoked } = await smokedCommit(
    { 'c.txt': 'c' },
    (t) => lineFor(t, 'PASS'),
    (t) => record(t, 'PASS'),
  );
  // The agent changed a file after the smoke and committed the old trailer.
  const commit = await repo.commit(`Change again\n\n${lineFor(smoked, 'PASS')}`, { 'c.txt': 'changed' });
  const tree = await repo.git(['rev-parse', 'HEAD^{tree}']);
  const verdict = await verify(commit);
  assert.is(verdict.code, 1);
  assert.is(
    verdict.line,
    `commit ${short(commit)}: its tree is ${short(tree)}, but its trailer names tree ${short(smoked)} ` +
      '(smoked before the commit changed)',
  );
});

test('evidence noted on this tree but recorded for another: 1', async () => {
  const { tree: other } = await smokedCommit(
    { 'd.txt': 'd' },
    (t) => lineFor(t, 'PASS'),
    (t) => record(t, 'PASS'),
  );
  const { commit, tree } = await smokedCommit({ 'e.txt': 'e' }, (t) => lineFor(t, 'PASS'));
  await repo.git(['notes', `--ref=${NOTES_REF}`, 'copy', other, tree]);
  assert.equal(await verify(commit), {
    code: 1,
    line: `commit ${short(commit)}: the evidence noted on tree ${short(tree)} is for tree ${short(other)}`,
  });
});

test('a hand-edited trailer: another verdict, or another detail than the smoke printed: 1', async () => {
  const fail = await smokedCommit(
    { 'f.txt': 'f' },
    (t) => lineFor(t, 'PASS'),
    (t) => record(t, 'FAIL'),
  );
  assert.equal(await verify(fail.commit), {
    code: 1,
    line: `commit ${short(fail.commit)}: the trailer says PASS, its evidence FAIL`,
  });
  const retried = (t: string) => lineFor(t, 'PASS', passDetail(3, 'docker', 1));
  const edited = await smokedCommit(
    { 'g.txt': 'g' },
    (t) => lineFor(t, 'PASS'),
    (t) => record(t, 'PASS', retried(t)),
  );
  const verdict = await verify(edited.commit);
  assert.is(verdict.code, 1);
  assert.match(verdict.line, 'the trailer differs from the one the smoke printed');
  assert.match(verdict.line, '1 after a retry');
});

test('a PASS whose evidence holds a failed smoke, a note that is not a record: 1', async () => {
  const lie = await smokedCommit(
    { 'h.txt': 'h' },
    (t) => lineFor(t, 'PASS'),
    (t) => ({ ...record(t, 'PASS'), smoke: toSmokeResult(failingRun) }),
  );
  assert.match((await verify(lie.commit)).line, "the evidence says PASS, the smoke's result in it does not");
  const junk = await smokedCommit({ 'i.txt': 'i' }, (t) => lineFor(t, 'PASS'));
  await repo.git(['notes', `--ref=${NOTES_REF}`, 'add', '-m', 'looks fine to me', junk.tree]);
  assert.equal(await verify(junk.commit), {
    code: 1,
    line: `commit ${short(junk.commit)}: the evidence note is not JSON`,
  });
});

test('a hand-made note that contradicts its PASS (1 probe, runtime none, no stack, at never): 1, named', async () => {
  const lie = await smokedCommit(
    { 'h2.txt': 'h2' },
    (t) => lineFor(t, 'PASS'),
    (t) => {
      const honest = record(t, 'PASS');
      const one = { ...honest.smoke!, passed: 1, total: 1, flaky: 0, probes: honest.smoke!.probes.slice(0, 1) };
      return { ...honest, runtime: 'none', at: 'never', composeConfig: null, images: {}, smoke: one };
    },
  );
  assert.equal(await verify(lie.commit), {
    code: 1,
    line: `commit ${short(lie.commit)}: its evidence names runtime "none", not docker or podman`,
  });
});

test('a note past MAX_NOTE_BYTES, valid JSON: it cannot tell (2), never "not JSON"', async () => {
  const padded = (t: string) => {
    const honest = record(t, 'PASS');
    const probes = honest.smoke!.probes.map((probe) => ({ ...probe, url: `http://b/${'x'.repeat(MAX_NOTE_BYTES)}` }));
    return { ...honest, smoke: { ...honest.smoke!, probes } };
  };
  const big = await smokedCommit({ 'h3.txt': 'h3' }, (t) => lineFor(t, 'PASS'), padded);
  const verdict = await verify(big.commit);
  assert.is(verdict.code, 2, verdict.line);
  assert.match(verdict.line, new RegExp(`is \\d+ bytes, more than the ${MAX_NOTE_BYTES} a smoke record may take`));
});

test('a FAIL bound to its tree verifies; a SKIPPED or a missing trailer binds nothing: 1', async () => {
  const failed = await smokedCommit(
    { 'j.txt': 'j' },
    (t) => lineFor(t, 'FAIL', 'x'),
    (t) => record(t, 'FAIL', lineFor(t, 'FAIL', 'x')),
  );
  assert.is((await verify(failed.commit)).code, 0);
  const skipped = await smokedCommit({ 'k.txt': 'k' }, () => 'smoke: SKIPPED — offline');
  assert.equal(await verify(skipped.commit), {
    code: 1,
    line: `commit ${short(skipped.commit)}: its SKIPPED trailer names no tree, so nothing binds it to a smoke`,
  });
  const none = await repo.commit('No trailer\n\nJust prose.', { 'l.txt': 'l' });
  assert.match((await verify(none)).line, /^commit [0-9a-f]{12}: no smoke trailer/);
  assert.is((await verify(none)).code, 1);
});

test('a detached HEAD verifies as its commit', async () => {
  const { commit } = await smokedCommit(
    { 'm.txt': 'm' },
    (t) => lineFor(t, 'PASS'),
    (t) => record(t, 'PASS'),
  );
  await repo.commit('Later, unsmoked', { 'n.txt': 'n' });
  await repo.git(['checkout', '--quiet', '--detach', commit]);
  assert.is((await verify('HEAD')).code, 0);
  await repo.git(['checkout', '--quiet', 'main']);
});

test('a shallow clone: its commits verify once the notes are fetched; missing history cannot be told (2)', async () => {
  await smokedCommit(
    { 'o.txt': 'o' },
    (t) => lineFor(t, 'PASS'),
    (t) => record(t, 'PASS'),
  );
  const clone = join(repo.dir, '..', 'shallow');
  await repo.git(['clone', '--quiet', '--depth', '1', '--no-local', `file://${repo.dir}`, clone]);
  const git = createGit(clone, repo.env);
  assert.is((await verify('HEAD', git)).code, 2, 'no notes fetched yet');
  await repo.git(['fetch', '--quiet', 'origin', `${NOTES_REF}:${NOTES_REF}`], clone);
  const head = await verify('HEAD', git);
  assert.is(head.code, 0, head.line);
  assert.equal(await verify('HEAD~1', git), {
    code: 2,
    line: 'HEAD~1 is not in this shallow clone (fetch more history: git fetch --unshallow)',
  });
});

test('no repository, no such commit, an option for a revision: it cannot tell (2)', async () => {
  const bare = mkdtempSync(join(tmpdir(), 'trailer-verify-none-'));
  try {
    const outside = await verify('HEAD', createGit(bare, { ...repo.env, GIT_CEILING_DIRECTORIES: tmpdir() }));
    assert.is(outside.code, 2);
    assert.match(outside.line, /^not a git repository/);
  } finally {
    rmSync(bare, { recursive: true, force: true });
  }
  assert.equal(await verify('no-such-branch'), { code: 2, line: 'no-such-branch is not a commit in this repository' });
  assert.equal(await verify('--all'), { code: 2, line: '"--all" is not a revision' });
  const tree = await repo.git(['rev-parse', 'HEAD^{tree}']);
  assert.is((await verify(tree)).code, 2, 'a tree is not a commit');
});

test.run();
