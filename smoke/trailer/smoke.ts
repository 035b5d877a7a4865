// Runs the smoke CLI against a set of addresses and sums up its result for a trailer.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot as root } from '../../tools/project-root.ts';
import { explain, runCommand } from './exec.ts';
import { describeProbe, firstFailure, parseSmokeJson, parseSmokeLines, type ProbeOutcome } from './report.ts';

export interface SmokeTargets {
  frontend: string;
  backend: string;
  device?: string;
}

export interface SmokeOptions {
  artifacts: string;
  /** Per-probe timeout handed to the smoke CLI. */
  probeTimeoutMs: number;
  env: NodeJS.ProcessEnv;
}

export type SmokeOutcome =
  | { result: 'PASS'; total: number }
  | { result: 'FAIL'; failed: number; total: number; first: string }
  /** The smoke could not run (exit 2: browser launch, bad configuration...) or gave no verdict. */
  | { result: 'ERROR'; problem: string };

export async function runSmoke(
  targets: SmokeTargets,
  { artifacts, probeTimeoutMs, env }: SmokeOptions,
): Promise<SmokeOutcome> {
  const dir = await mkdtemp(join(tmpdir(), 'smoke-trailer-'));
  const jsonFile = join(dir, 'probes.json');
  const args = [
    '--import',
    'tsx',
    join(root, 'smoke/cli.ts'),
    '--frontend',
    targets.frontend,
    '--backend',
    targets.backend,
  ];
  if (targets.device) args.push('--device', targets.device);
  args.push('--artifacts', artifacts, '--timeout', String(probeTimeoutMs), '--json', jsonFile);
  // Four probes plus a browser start; the limit only guards against a smoke CLI that never ends.
  const timeoutMs = probeTimeoutMs * 6 + 60_000;
  try {
    const run = await runCommand(process.execPath, args, { env, cwd: root, timeoutMs });
    const printed = parseSmokeLines(run.stdout);
    const probes = (await readProbes(jsonFile)) ?? printed.probes;
    const total = printed.verdict?.total ?? probes.length;
    if (run.code === 0 && total > 0) return { result: 'PASS', total };
    if (run.code === 1) {
      const failing = firstFailure(probes);
      const failed = printed.verdict?.failed ?? probes.filter((probe) => !probe.passed).length;
      return {
        result: 'FAIL',
        failed,
        total,
        first: failing ? describeProbe(failing) : `smoke: FAIL (${failed}/${total} failed)`,
      };
    }
    if (run.code === 0) return { result: 'ERROR', problem: 'smoke exited 0 without a verdict line' };
    const code = run.code === null ? '' : ` (exit ${run.code})`;
    return { result: 'ERROR', problem: `smoke could not run${code}: ${explain('smoke', run, 'last', timeoutMs)}` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function readProbes(file: string): Promise<ProbeOutcome[] | undefined> {
  try {
    return parseSmokeJson(JSON.parse(await readFile(file, 'utf8')));
  } catch {
    return undefined; // no file or not JSON: fall back to the printed lines
  }
}
