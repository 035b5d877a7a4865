// The commit trailer end to end on a real Docker Engine, warm: a PASS (the tree named and copied, compose up, the
// smoke, the evidence noted, down) and a FAIL whose baseline is read from the parent's evidence, each against the
// same compose steps by hand. Needs an engine (`eval "$(bash scripts/container-engine.sh)"`); without one its rows
// say so and carry no verdict. The trailer smokes and notes in a repository of the bench's own, never the project's.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchRow, Scenario } from './scenario.ts';
import { interleavedMedians } from './scenario.ts';
import { root } from '../support/spawn-service.ts';
import { runCli } from '../support/run-smoke-cli.ts';
import { repoOfWorkTree, type TestRepo } from '../support/git-repo.ts';
import { docker, dockerOk } from '../containers/support/swarm.ts';
import { freePort } from '../../tools/free-port.ts';

const PROJECT = 'shk-bench-trailer';
const TARGET_MS = 10_000;
const ports = { BACKEND_PORT: '0', FRONTEND_PORT: '0', DEVICE_PORT: '0' };
const compose = (args: string[], timeoutMs = 120_000) =>
  dockerOk(['compose', '--project-directory', root, '-p', PROJECT, ...args], timeoutMs, { ...process.env, ...ports });

/** `npx tsx smoke/trailer.ts` against the bench's repository; its one line must match `expected`. */
async function trailer(repo: TestRepo, args: string[], expected: RegExp): Promise<number> {
  const env = { ...repo.env, BACKEND_PORT: undefined, FRONTEND_PORT: undefined, DEVICE_PORT: undefined };
  const run = await runCli([...args, '--artifacts', `.tmp/bench-trailer-${process.pid}`], {
    entry: 'smoke/trailer.ts',
    env,
    deadline: 300_000,
  });
  if (run.code !== 0 || !expected.test(run.stdout.join('\n')))
    throw new Error(`trailer said: ${run.stdout.join(' | ')} ${run.stderr.join(' | ')}`);
  return run.ms;
}

/** The trailer's steps by hand: up --wait, the smoke CLI against the published ports (or `backend`), down. */
async function byHand(backend?: string): Promise<number> {
  const start = Date.now();
  await compose(['up', '--detach', '--wait']);
  const port = async (service: string, inner: number) =>
    (await compose(['port', service, String(inner)])).trim().split(':').at(-1);
  const backendUrl = backend ?? `http://127.0.0.1:${await port('backend', 3001)}`;
  const frontend = `http://127.0.0.1:${await port('frontend', 3000)}`;
  const artifacts = `.tmp/bench-smoke-${process.pid}`;
  const run = await runCli(['--backend', backendUrl, '--frontend', frontend, '--artifacts', artifacts]);
  if (run.code !== (backend ? 1 : 0)) throw new Error(`smoke by hand: ${run.stdout.join(' | ')}`);
  await compose(['down', '--volumes']);
  return Date.now() - start;
}

/** The index gains one file, so the next smoke's tree is a child of the committed one. */
async function stageChange(repo: TestRepo) {
  const scratch = mkdtempSync(join(tmpdir(), 'bench-change-'));
  writeFileSync(join(scratch, 'change'), `${Date.now()}\n`);
  const blob = await repo.git(['hash-object', '-w', join(scratch, 'change')]);
  rmSync(scratch, { recursive: true, force: true });
  await repo.git(['update-index', '--add', '--cacheinfo', `100644,${blob},.bench-change`]);
}

const row = (what: string, baseline: string, times: { ours: number; baseline: number }, rounds: number) => ({
  scenario: `commit trailer end to end, warm: ${what} (median of ${rounds})`,
  baseline: `${baseline} ${(times.baseline / 1000).toFixed(1)} s`,
  ours: `${(times.ours / 1000).toFixed(1)} s`,
  ratio: `${(times.ours / times.baseline).toFixed(2)}×`,
  target: '≤ 10 s',
  ok: times.ours <= TARGET_MS,
});

const trailerEndToEnd: Scenario = async ({ quick }) => {
  const rounds = quick ? 1 : 3;
  const info = await docker(['info', '--format', '{{.ServerVersion}}'], 20_000);
  if (info.code !== 0) {
    const ours = 'skipped: no Docker Engine answers';
    return [{ scenario: 'commit trailer end to end', baseline: '-', ours, ratio: '-', target: '≤ 10 s', ok: null }];
  }
  const repo = await repoOfWorkTree(root, 'bench-trailer-');
  try {
    await compose(['build'], 600_000);
    const pass = () => trailer(repo, [], /^smoke: PASS — tree [0-9a-f]{12}: 3\/3 probes against \w+ compose$/);
    await pass(); // warm: the images built as this tree's release, its evidence noted
    await byHand();
    const passed = await interleavedMedians(rounds, pass, () => byHand());
    // The tree that passed becomes the parent; its child fails on a dead backend, and reads the parent's PASS.
    await repo.git(['commit', '--quiet', '-m', 'bench: the parent']);
    await stageChange(repo);
    const dead = `http://127.0.0.1:${await freePort()}`;
    const failArgs = ['--backend', dead, '--baseline-timeout', '0'];
    const fail = () =>
      trailer(repo, failArgs, /^smoke: FAIL — tree [0-9a-f]{12} \(parent passed\): \[HEALTH\] backend/);
    await fail();
    const failed = await interleavedMedians(rounds, fail, () => byHand(dead));
    const hand = 'by hand: compose up --wait, the smoke CLI, compose down';
    return [
      row('PASS, the tree named and copied, up, smoke (3 probes), evidence noted, down', hand, passed, rounds),
      row("FAIL on a dead backend URL, its baseline read from the parent's evidence", hand, failed, rounds),
    ];
  } finally {
    repo.remove();
  }
};

export default trailerEndToEnd;
