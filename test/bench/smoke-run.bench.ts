// The full smoke run (5 probes + Chromium) vs a bare puppeteer-core script screenshotting the same page.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchRow, Scenario } from './scenario.ts';
import { interleavedMedians } from './scenario.ts';
import { createFixtureHandler } from '../support/fake-http-server.ts';
import { runCli } from '../support/run-smoke-cli.ts';
import { listen } from '../support/listen.ts';
import { stopAll } from '../support/spawn-process.ts';

const smokeRun: Scenario = async ({ quick }) => {
  const rounds = quick ? 3 : 9;
  const dir = mkdtempSync(join(tmpdir(), 'smoke-bench-'));
  const fx = await listen(createFixtureHandler());
  // Both sides are a fresh `node --import tsx` process, so each pays the same start-up; the difference is ours.
  const ours = async () => {
    const args = [
      '--backend',
      `${fx.url}/ok`,
      '--device',
      `${fx.url}/ok`,
      '--frontend',
      `${fx.url}/`,
      '--artifacts',
      dir,
    ];
    const run = await runCli(args, { env: { NO_COLOR: '1' } });
    if (run.code !== 0 || run.stdout.at(-1) !== 'smoke: PASS (5/5)')
      throw new Error(`smoke run failed: ${run.stdout.join(' | ')} ${run.stderr.join(' | ')}`);
    return run.ms;
  };
  const bare = async () => {
    const run = await runCli([`${fx.url}/`, join(dir, 'bare.png')], { entry: 'test/support/bare-screenshot.ts' });
    if (run.code !== 0) throw new Error(`bare script failed: ${run.stderr.join(' | ')}`);
    return run.ms;
  };
  try {
    await ours(); // warm-up: tsx's compile cache and the page cache, for both
    await bare();
    const { ours: mine, baseline } = await interleavedMedians(rounds, ours, bare);
    const m = { ours: mine, bare: baseline };
    const ratio = m.ours / m.bare;
    const row: BenchRow = {
      scenario: `smoke run, 5 probes + LOAD with screenshot, process wall time (median of ${rounds})`,
      baseline: `bare puppeteer-core screenshot ${Math.round(m.bare)} ms`,
      ours: `${Math.round(m.ours)} ms`,
      ratio: `${ratio.toFixed(2)}×`,
      target: '≤ 1.25×',
      ok: ratio <= 1.25,
    };
    return [row];
  } finally {
    await stopAll();
    await fx.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

export default smokeRun;
