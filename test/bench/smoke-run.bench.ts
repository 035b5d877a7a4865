// The full smoke run (5 probes + Chromium) vs a bare puppeteer-core script screenshotting the same page; and the
// commit trailer's compose path (a recording `docker` that starts nothing) vs the smoke alone it runs.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { BenchRow, Scenario } from './scenario.ts';
import { interleavedMedians } from './scenario.ts';
import { createFixtureHandler, releaseBehaviour } from '../support/fake-http-server.ts';
import { createRepo } from '../support/git-repo.ts';
import { runCli } from '../support/run-smoke-cli.ts';
import { listen } from '../support/listen.ts';
import { stopAll } from '../support/spawn-process.ts';

// Answers `info` and `compose version`, and every other compose command (up, down) at once.
const FAKE_DOCKER = `#!/bin/sh
if [ "$1" = info ]; then echo "Server Version: 27.3.1"; exit 0; fi
if [ "$1 $2" = "compose version" ]; then echo "Docker Compose version v2.29.7"; exit 0; fi
exit 0
`;

const smokeRun: Scenario = async ({ quick }) => {
  const dir = mkdtempSync(join(tmpdir(), 'smoke-bench-'));
  // The trailer smokes the tree of a repository of the bench's own (never the project's: it notes its evidence
  // there), and expects the stack to answer with that tree as its release: so does the fixture's `release` route.
  const repo = await createRepo('bench-smoke-run-');
  await repo.stage({ 'a.txt': 'a' });
  const release = (await repo.git(['write-tree'])).slice(0, 12);
  const fx = await listen(createFixtureHandler({ release: releaseBehaviour(release) }));
  const passed = (what: string, run: { code: number | string; stdout: string[]; stderr: string[] }, last: string) => {
    if (run.code !== 0 || run.stdout.at(-1) !== last)
      throw new Error(`${what} failed: ${run.stdout.join(' | ')} ${run.stderr.join(' | ')}`);
  };
  // Both sides are a fresh `node --import tsx` process, so each pays the same start-up; the difference is ours.
  const ours = async () => {
    const args = ['--backend', `${fx.url}/ok`, '--device', `${fx.url}/ok`, '--frontend', `${fx.url}/`];
    const run = await runCli([...args, '--artifacts', dir], { env: { NO_COLOR: '1' } });
    passed('smoke run', run, 'smoke: PASS (5/5)');
    return run.ms;
  };
  const bare = async () => {
    const run = await runCli([`${fx.url}/`, join(dir, 'bare.png')], { entry: 'test/support/bare-screenshot.ts' });
    if (run.code !== 0) throw new Error(`bare script failed: ${run.stderr.join(' | ')}`);
    return run.ms;
  };
  // The trailer against the same fixture, and the 3-probe smoke it runs there, alone.
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'docker'), FAKE_DOCKER);
  chmodSync(join(bin, 'docker'), 0o755);
  const composeFile = join(dir, 'compose.yaml');
  writeFileSync(composeFile, 'services: {}\n');
  const targets = ['--backend', `${fx.url}/release`, '--frontend', `${fx.url}/`, '--artifacts', dir];
  const trailerEnv = {
    ...repo.env,
    GIT_DIR: join(repo.dir, '.git'),
    GIT_WORK_TREE: repo.dir,
    // The recording docker first; git and the rest from the PATH as it is (the trailer names the tree it smoked).
    PATH: `${bin}${delimiter}${process.env.PATH}`,
  };
  const trailer = async () => {
    const args = ['--compose-file', composeFile, ...targets];
    const run = await runCli([...args, '--timeout', '10000'], { entry: 'smoke/trailer.ts', env: trailerEnv });
    passed('trailer run', run, `smoke: PASS — tree ${release}: 3/3 probes against docker compose`);
    return run.ms;
  };
  const smokeAlone = async () => {
    const args = [...targets, '--timeout', '10000', '--json', join(dir, 'result.json')];
    const run = await runCli(args, { env: { NO_COLOR: '1' } });
    passed('smoke run', run, 'smoke: PASS (3/3)');
    return run.ms;
  };
  try {
    for (const warmUp of [ours, bare, trailer, smokeAlone]) await warmUp(); // tsx's compile cache, the page cache
    const rounds = quick ? 3 : 9;
    const smoke = await interleavedMedians(rounds, ours, bare);
    const ratio = smoke.ours / smoke.baseline;
    const trailerRounds = quick ? 3 : 7;
    const wrapped = await interleavedMedians(trailerRounds, trailer, smokeAlone);
    const rows: BenchRow[] = [
      {
        scenario: `smoke run, 5 probes + LOAD with screenshot, process wall time (median of ${rounds})`,
        baseline: `bare puppeteer-core screenshot ${Math.round(smoke.baseline)} ms`,
        ours: `${Math.round(smoke.ours)} ms`,
        ratio: `${ratio.toFixed(2)}×`,
        target: '≤ 1.25×',
        ok: ratio <= 1.25,
      },
      {
        scenario:
          'commit trailer, compose path with a recording docker, ' + `process wall time (median of ${trailerRounds})`,
        baseline: `the smoke CLI alone, 3 probes ${Math.round(wrapped.baseline)} ms`,
        ours: `${Math.round(wrapped.ours)} ms`,
        ratio: `${(wrapped.ours / wrapped.baseline).toFixed(2)}×`,
        target: '-',
        ok: null,
      },
    ];
    return rows;
  } finally {
    await stopAll();
    await fx.close();
    repo.remove();
    rmSync(dir, { recursive: true, force: true });
  }
};

export default smokeRun;
