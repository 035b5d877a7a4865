// The compiled health check's cost per run (it runs every 30 s in the backend container) against bare `node -e 0`.
// Wall time and peak RSS of the whole process, interleaved rounds, medians; tsx shown for what compiling saves.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listen } from '../support/listen.ts';
import { compileHealthcheck, root } from '../infra/compile-healthcheck.ts';
import { median, type BenchRow, type Scenario } from './scenario.ts';

const TARGET = 1.3;
// GNU time reports the child's peak resident set (getrusage ru_maxrss) in KiB with %M.
const GNU_TIME = '/usr/bin/time';

/** Wall time of one process, from spawn to exit, in ms; rejects if it does not exit 0. */
function wall(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      code === 0 ? resolve(ms) : reject(new Error(`node ${args.join(' ')} exited ${code}`));
    });
  });
}

/** Peak RSS of one process in KiB, as GNU time measures it for its child. */
function peakRss(args: string[], env: NodeJS.ProcessEnv, scratch: string): Promise<number> {
  const out = join(scratch, 'rss');
  return new Promise((resolve, reject) => {
    const child = spawn(GNU_TIME, ['-f', '%M', '-o', out, process.execPath, ...args], {
      cwd: root,
      env,
      stdio: 'ignore',
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const kib = Number(readFileSync(out, 'utf8').trim().split('\n').pop());
      code === 0 && kib > 0 ? resolve(kib) : reject(new Error(`time node ${args.join(' ')} exited ${code}`));
    });
  });
}

const ratioRow = (scenario: string, unit: string, base: number, ours: number, digits = 1): BenchRow => ({
  scenario,
  baseline: `node -e 0 ${base.toFixed(digits)} ${unit}`,
  ours: `${ours.toFixed(digits)} ${unit}`,
  ratio: `${(ours / base).toFixed(2)}×`,
  target: `≤ ${TARGET}×`,
  ok: ours / base <= TARGET,
});

const healthcheckBench: Scenario = async function healthcheckBench({ quick }) {
  const rounds = quick ? 15 : 40;
  const tsxRounds = quick ? 3 : 10;
  const compiled = await compileHealthcheck('bench-healthcheck');
  // The backend stand-in: answers 200 at once, like /api/health.
  const server = await listen((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'),
  );
  const scratch = mkdtempSync(join(tmpdir(), 'healthcheck-bench-'));
  const env = { ...process.env, PORT: String(server.port) };
  const baseArgs = ['-e', '0'];
  const checkArgs = [compiled.file];
  try {
    const times = { base: [] as number[], check: [] as number[], tsx: [] as number[] };
    const rss = { base: [] as number[], check: [] as number[] };
    const measureRss = existsSync(GNU_TIME);
    await wall(checkArgs, env); // warm the file cache before timing
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first, so neither always runs right after the other.
      const order = round % 2 ? (['check', 'base'] as const) : (['base', 'check'] as const);
      for (const which of order) {
        const args = which === 'base' ? baseArgs : checkArgs;
        times[which].push(await wall(args, env));
        if (measureRss) rss[which].push(await peakRss(args, env, scratch));
      }
      if (round < tsxRounds) times.tsx.push(await wall(['--import', 'tsx', 'healthcheck.ts'], env));
    }
    const base = median(times.base);
    const rows = [ratioRow('healthcheck: wall time per run (compiled, plain node)', 'ms', base, median(times.check))];
    rows.push(
      measureRss
        ? ratioRow(
            'healthcheck: peak RSS per run (compiled, plain node)',
            'MiB',
            median(rss.base) / 1024,
            median(rss.check) / 1024,
          )
        : {
            scenario: 'healthcheck: peak RSS per run',
            baseline: '-',
            ours: `not measured: ${GNU_TIME} is missing`,
            ratio: '-',
            target: `≤ ${TARGET}×`,
            ok: null,
          },
    );
    const viaTsx = median(times.tsx);
    rows.push({
      scenario: 'healthcheck: wall time through tsx (not used in the image)',
      baseline: `node -e 0 ${base.toFixed(1)} ms`,
      ours: `${viaTsx.toFixed(1)} ms`,
      ratio: `${(viaTsx / base).toFixed(2)}×`,
      target: 'reported only',
      ok: null,
    });
    return rows;
  } finally {
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
    compiled.remove();
  }
};

export default healthcheckBench;
