// A FAIL's baseline: the parent's evidence when it has some; else the parent smoked within the bound, or
// unknown past it; no parent at all for the first commit.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createRepo, type TestRepo } from '../../test/support/git-repo.ts';
import { baselineOf } from './baseline.ts';
import type { ComposeRun } from './compose.ts';
import { EVIDENCE_FORMAT, writeEvidence } from './evidence-note.ts';

const test = suite('baseline');
let repo: TestRepo;
test.before(async () => {
  repo = await createRepo('trailer-baseline-');
});
test.after(() => repo.remove());

const run = (verdict: ComposeRun['verdict'], extra: Partial<ComposeRun> = {}): ComposeRun => ({
  verdict,
  what: verdict === 'SKIPPED' ? 'no compose' : 'x',
  smoke: null,
  images: {},
  composeConfig: null,
  ...extra,
});
const never = async (): Promise<ComposeRun> => {
  throw new Error('the parent was smoked');
};

test('no commit yet: no parent, and nothing smoked', async () => {
  const baseline = await baselineOf(repo.handle, { boundS: 60, smokeParent: never });
  assert.equal(baseline, { parent: null, tree: null, verdict: null, source: 'none', phrase: 'no parent' });
});

test("the parent's evidence decides, without smoking it", async () => {
  const parent = await repo.commit('First', { 'a.txt': 'a' });
  const tree = await repo.git(['rev-parse', 'HEAD^{tree}']);
  for (const verdict of ['PASS', 'FAIL'] as const) {
    const evidence = {
      format: EVIDENCE_FORMAT as typeof EVIDENCE_FORMAT,
      tree,
      verdict,
      trailer: 't',
      runtime: 'docker',
      at: 'now',
    };
    await writeEvidence(repo.handle, { ...evidence, composeConfig: null, images: {}, smoke: null, baseline: null });
    assert.equal(await baselineOf(repo.handle, { boundS: 60, smokeParent: never }), {
      parent,
      tree,
      verdict,
      source: 'evidence',
      phrase: verdict === 'PASS' ? 'parent passed' : 'parent failed too',
    });
  }
});

test('no evidence: the parent smoked within the bound; past it, or not allowed, the baseline is unknown', async () => {
  await repo.commit('Second', { 'b.txt': 'b' });
  const tree = await repo.git(['rev-parse', 'HEAD^{tree}']);
  const asked: [string, number][] = [];
  const smoked = await baselineOf(repo.handle, {
    boundS: 90,
    smokeParent: async (parentTree, deadline) => {
      asked.push([parentTree, deadline]);
      return run('FAIL');
    },
  });
  assert.equal([smoked.verdict, smoked.source, smoked.phrase], ['FAIL', 'smoked', 'parent failed too']);
  assert.is(asked[0]![0], tree);
  assert.ok(Math.abs(asked[0]![1] - (Date.now() + 90_000)) < 10_000, 'the deadline is the bound from now');
  const late = await baselineOf(repo.handle, { boundS: 5, smokeParent: async () => run('FAIL', { late: true }) });
  assert.equal([late.verdict, late.source, late.phrase], [null, 'none', 'parent not smoked within 5 s']);
  const skipped = await baselineOf(repo.handle, { boundS: 5, smokeParent: async () => run('SKIPPED') });
  assert.is(skipped.phrase, 'parent not smoked: no compose');
  const off = await baselineOf(repo.handle, { boundS: 0, smokeParent: never });
  assert.equal([off.verdict, off.phrase], [null, 'parent not smoked: no evidence']);
});

test.run();
