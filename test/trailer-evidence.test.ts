// The trailer's evidence and baseline end to end, against recording fakes: the note a PASS leaves on its tree and
// `verify` of the commit made with it, a FAIL's baseline read from the parent's evidence, smoked, or past its bound,
// the label with --label-regressions-only, and a start-up warning that is not named as the cause of a failure.
import * as assert from 'uvu/assert';
import { readFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { freePort } from '../tools/free-port.ts';
import { spawnProcess } from './support/spawn-process.ts';
import { root } from './support/spawn-service.ts';
import { serviceArgs } from './support/compiled-services.ts';
import { trailerHarness } from './support/trailer-harness.ts';
import { EVIDENCE_FORMAT, NOTES_REF, parseEvidence, writeEvidence } from '../smoke/trailer/evidence-note.ts';

const h = trailerHarness('trailer-evidence');
const { test, dir, record, composeFile, FAKE_DOCKER, FAKE_GH, install, targets, trailer } = h;
const { commands, short, psLine, UP, DOWN } = h;

/** The evidence noted on a tree of the test's repository. */
async function noted(onTree: string) {
  const blob = await h.repo.git(['notes', `--ref=${NOTES_REF}`, 'list', onTree]);
  const read = parseEvidence(await h.repo.git(['cat-file', 'blob', blob]));
  assert.ok(read.found, JSON.stringify(read));
  return (read as Extract<typeof read, { found: true }>).evidence;
}

/** Commits what is staged (with `message`) and stages a new change: the next smoke's parent is that commit. */
async function advance(message = 'Change\n\nWhy.') {
  await h.repo.git(['commit', '--quiet', '--allow-empty', '-m', message]);
  await h.repo.stage({ [`change-${Date.now()}.txt`]: 'x' });
  h.tree = await h.repo.git(['write-tree']);
  return h.repo.git(['rev-parse', 'HEAD^{tree}']);
}

const verifyRun = async (rev: string) => {
  // From inside the repository, as a reader would (the trailer's arguments name every file by its full address).
  const entry = await serviceArgs(root, 'smoke/trailer.ts');
  const proc = spawnProcess(process.execPath, [...entry, 'verify', rev], {
    cwd: h.repo.dir,
    env: { ...process.env, ...h.repo.env },
  });
  const code = await proc.waitExit(60_000);
  return { code, stdout: proc.stdout.filter(Boolean), stderr: proc.stderr.filter(Boolean) };
};

test('a PASS notes its evidence on the tree; the commit made with it verifies (0), an edited one not (1)', async () => {
  install('docker', FAKE_DOCKER);
  const run = await trailer(['--compose-file', composeFile, ...(await targets())]);
  const line = `smoke: PASS — tree ${short()}: 3/3 probes against docker compose`;
  assert.equal(run.stdout, [line], run.stderr);
  const evidence = await noted(h.tree);
  assert.equal(
    [evidence.format, evidence.tree, evidence.verdict, evidence.trailer, evidence.runtime, evidence.baseline],
    [EVIDENCE_FORMAT, h.tree, 'PASS', line, 'docker', null],
  );
  assert.is(
    evidence.composeConfig,
    `sha256:${createHash('sha256').update('name: fake\nservices: {}\n').digest('hex')}`,
  );
  assert.equal(evidence.images, { backend: 'sha256:b4c0', frontend: 'sha256:f40e' });
  assert.equal([evidence.smoke?.result, evidence.smoke?.total], ['PASS', 3]);
  await advance(`Smoked change\n\nWhy.\n\n${line}`);
  // A revision that is no commit needs nothing from the amend below: it runs beside the first verify.
  const [good, nowhere] = await Promise.all([verifyRun('HEAD'), verifyRun('no-such-rev')]);
  assert.is(good.code, 0, good.stderr.join('\n'));
  assert.match(
    good.stdout.join('\n'),
    /^smoke trailer verified: commit [0-9a-f]{12}: PASS on tree [0-9a-f]{12}, evidence of /,
  );
  await h.repo.git(['commit', '--quiet', '--amend', '--only', '-m', `Smoked change\n\n${line.replace('3/3', '4/4')}`]);
  const edited = await verifyRun('HEAD');
  assert.is(edited.code, 1);
  assert.equal(edited.stdout, []);
  assert.is(edited.stderr.length, 1);
  assert.match(
    edited.stderr[0]!,
    /^smoke trailer verify: commit [0-9a-f]{12}: the trailer differs from the one the smoke printed/,
  );
  assert.equal(
    [nowhere.code, nowhere.stderr],
    [2, ['smoke trailer verify: no-such-rev is not a commit in this repository']],
  );
});

test('a FAIL the parent shares: baseline from its evidence; --label-regressions-only spares the issue', async () => {
  install('docker', FAKE_DOCKER);
  install('gh', FAKE_GH);
  const parentTree = await advance();
  const parent = { format: EVIDENCE_FORMAT, tree: parentTree, trailer: 'x', runtime: 'docker', at: 'then' } as const;
  const rest = { composeConfig: null, images: {}, smoke: null, baseline: null };
  await writeEvidence(h.repo.handle, { ...parent, ...rest, verdict: 'FAIL' });
  const args = [
    '--compose-file',
    composeFile,
    '--issue',
    '42',
    '--label-regressions-only',
    ...(await targets({ ready: 503 })),
  ];
  const shared = await trailer(args);
  assert.equal(shared.stdout, [
    `smoke: FAIL — tree ${short()} (parent failed too): [READY] backend: database disconnected`,
  ]);
  assert.not.ok(
    commands().some((line) => line.startsWith('gh ')),
    'not labelled',
  );
  assert.match(
    shared.stderr,
    'trailer: not labelling issue 42 ralph:blocked: the parent failed too (--label-regressions-only)',
  );
  const baseline = (await noted(h.tree)).baseline;
  assert.equal(baseline, {
    parent: await h.repo.git(['rev-parse', 'HEAD']),
    tree: parentTree,
    verdict: 'FAIL',
    source: 'evidence',
    phrase: 'parent failed too',
  });
  await writeEvidence(h.repo.handle, { ...parent, ...rest, verdict: 'PASS' });
  rmSync(record, { force: true });
  const regression = await trailer(args);
  assert.equal(regression.stdout, [
    `smoke: FAIL — tree ${short()} (parent passed): [READY] backend: database disconnected`,
  ]);
  assert.ok(commands().includes('gh issue edit 42 --add-label ralph:blocked'), 'a regression is labelled');
});

test('a parent without evidence is smoked within the bound for the baseline; past it, unknown', async () => {
  install('docker', FAKE_DOCKER);
  install('gh', FAKE_GH);
  await advance(); // the tree smoked last becomes the parent's parent: that one has evidence
  const parentTree = await advance();
  const args = ['--compose-file', composeFile, ...(await targets({ ready: 503 }))];
  const smoked = await trailer(args);
  assert.equal(smoked.stdout, [
    `smoke: FAIL — tree ${short()} (parent failed too): [READY] backend: database disconnected`,
  ]);
  assert.match(smoked.stderr, `smoking the parent's tree ${parentTree.slice(0, 12)} for a baseline`);
  assert.is(commands().filter((line) => line === UP).length, 2, 'the change, then its parent');
  assert.is((await noted(parentTree)).verdict, 'FAIL', "the parent's run is noted: next time it is read");
  assert.is((await noted(h.tree)).baseline?.source, 'smoked');
  await advance();
  const slowParent = await advance();
  rmSync(record, { force: true });
  const late = await trailer([...args, '--issue', '9', '--label-regressions-only', '--baseline-timeout', '2'], {
    FAKE_SLOW_RELEASE: slowParent.slice(0, 12),
  });
  assert.equal(late.stdout, [
    `smoke: FAIL — tree ${short()} (parent not smoked within 2 s): [READY] backend: database disconnected`,
  ]);
  assert.ok(commands().includes('gh issue edit 9 --add-label ralph:blocked'), 'an unknown baseline is labelled');
  assert.is(commands().filter((line) => line === DOWN).length, 2, 'the parent stack is brought down past the bound');
  assert.is(
    (await h.repo.git(['notes', `--ref=${NOTES_REF}`, 'list'])).includes(slowParent),
    false,
    'nothing noted for it',
  );
});

test("a dead backend URL: the backend's start-up DEVICE_TOKEN warning is not named as the cause", async () => {
  install('docker', FAKE_DOCKER);
  const [, , , frontendUrl, ...rest] = await targets();
  const dead = `http://127.0.0.1:${await freePort()}`;
  const startUp = Date.now() - 60_000;
  const logs = [
    JSON.stringify({
      level: 40,
      time: startUp,
      msg: 'DEVICE_TOKEN is not set: every device socket upgrade is refused (401)',
    }),
    JSON.stringify({ level: 30, time: startUp + 5, msg: 'backend listening', port: 3001 }),
  ].join('\n');
  const run = await trailer(
    ['--compose-file', composeFile, '--baseline-timeout', '0', '--backend', dead, '--frontend', frontendUrl!, ...rest],
    {
      FAKE_PS: psLine('backend', 'running', 'healthy'),
      FAKE_LOGS: logs,
    },
  );
  assert.is(run.stdout.length, 1, run.stderr);
  assert.match(run.stdout[0]!, new RegExp(`^smoke: FAIL — tree ${short()} \\([^)]*\\): \\[HEALTH\\] backend: `));
  assert.not.match(run.stdout[0]!, /DEVICE_TOKEN|backend log/);
  const report = readFileSync(join(dir, 'artifacts', 'smoke-report.md'), 'utf8');
  assert.match(report, 'DEVICE_TOKEN is not set', 'the report still shows the whole log');
});

test.run();
