// The commit trailer's compose path (a recording `docker` that starts nothing, the real smoke against a fixture)
// vs the smoke CLI alone against the same fixture: what the trailer adds around the smoke it runs.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchRow, Scenario } from './scenario.ts';
import { interleavedMedians } from './scenario.ts';
import { createFixtureHandler } from '../support/fake-http-server.ts';
import { runCli } from '../support/run-smoke-cli.ts';
import { listen } from '../support/listen.ts';
import { stopAll } from '../support/spawn-process.ts';

// Answers `info` and `compose version`, and every other compose command (up, down) at once.
const FAKE_DOCKER = `#!/bin/sh
if [ "$1" = info ]; then echo "Server Version: 27.3.1"; exit 0; fi
if [ "$1 $2" = "compose version" ]; then echo "Docker Compose version v2.29.7"; exit 0; fi
exit 0
`;

const trailerRun: Scenario = async ({ quick }) => {
  const rounds = quick ? 3 : 7;
  const dir = mkdtempSync(join(tmpdir(), 'trailer-bench-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'docker'), FAKE_DOCKER);
  chmodSync(join(bin, 'docker'), 0o755);
  const composeFile = join(dir, 'compose.yaml');
  writeFileSync(composeFile, 'services: {}\n');
  const fx = await listen(createFixtureHandler());
  const targets = ['--backend', `${fx.url}/ok`, '--frontend', `${fx.url}/`, '--artifacts', dir];
  const trailer = async () => {
    const run = await runCli(['--compose-file', composeFile, ...targets, '--timeout', '10000'], {
      entry: 'smoke/trailer.ts',
      env: { PATH: bin },
    });
    if (run.code !== 0 || run.stdout.at(-1) !== 'smoke: PASS — 3/3 probes against docker compose')
      throw new Error(`trailer run failed: ${run.stdout.join(' | ')} ${run.stderr.join(' | ')}`);
    return run.ms;
  };
  const smoke = async () => {
    const run = await runCli([...targets, '--timeout', '10000', '--json', join(dir, 'smoke.json')], {
      env: { NO_COLOR: '1' },
    });
    if (run.code !== 0) throw new Error(`smoke run failed: ${run.stdout.join(' | ')} ${run.stderr.join(' | ')}`);
    return run.ms;
  };
  try {
    await trailer(); // warm-up, as in smoke-run.bench.ts
    await smoke();
    const { ours, baseline } = await interleavedMedians(rounds, trailer, smoke);
    const m = { trailer: ours, smoke: baseline };
    const row: BenchRow = {
      scenario: `commit trailer, compose path with a recording docker, process wall time (median of ${rounds})`,
      baseline: `the smoke CLI alone, 3 probes ${Math.round(m.smoke)} ms`,
      ours: `${Math.round(m.trailer)} ms`,
      ratio: `${(m.trailer / m.smoke).toFixed(2)}×`,
      target: '-',
      ok: null,
    };
    return [row];
  } finally {
    await stopAll();
    await fx.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

export default trailerRun;
