// Runs the smoke CLI against a set of addresses and sums up its result for a trailer: its exit code and the result
// it wrote with --json (smoke/result.ts), never the lines it printed for people.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot as root } from '../../tools/project-root.ts';
import { readSmokeResult, type ReadResult } from '../result.ts';
import { explain, runCommand, type CommandResult } from './exec.ts';
import { describeProbe, firstFailure } from './report.ts';

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
  /** `first`: the first failing probe, or why there is none to name; `counts` when the result could be read. */
  | { result: 'FAIL'; first: string; counts?: { failed: number; total: number } }
  /** The smoke could not run (exit 2: browser launch, bad configuration...) or left no result to trust. */
  | { result: 'ERROR'; problem: string };

export async function runSmoke(
  targets: SmokeTargets,
  { artifacts, probeTimeoutMs, env }: SmokeOptions,
): Promise<SmokeOutcome> {
  const dir = await mkdtemp(join(tmpdir(), 'smoke-trailer-'));
  const jsonFile = join(dir, 'result.json');
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
    const read = run.code === 0 || run.code === 1 ? await readSmokeResult(jsonFile) : undefined;
    return smokeOutcome(run, read, timeoutMs);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The outcome of a smoke run from its exit code (0 passed, 1 a probe failed, else it could not run) and, for 0
 * and 1, the result it wrote. A result that is missing, unreadable or at odds with the exit code is never a PASS:
 * after exit 1 it is still a FAIL, after exit 0 an ERROR (the caller's SKIPPED), each naming the file.
 */
export function smokeOutcome(run: CommandResult, read: ReadResult | undefined, timeoutMs: number): SmokeOutcome {
  if (run.code !== 0 && run.code !== 1) {
    const code = run.code === null ? '' : ` (exit ${run.code})`;
    return { result: 'ERROR', problem: `smoke could not run${code}: ${explain('smoke', run, 'last', timeoutMs)}` };
  }
  if (!read?.ok) {
    const problem = read?.problem ?? 'it wrote no result';
    if (run.code === 0) return { result: 'ERROR', problem: `smoke exited 0, but ${problem}` };
    return { result: 'FAIL', first: `smoke exited 1 (a probe failed), but ${problem}` };
  }
  const { result } = read;
  if (run.code === 0 && result.result === 'PASS') return { result: 'PASS', total: result.total };
  if (run.code === 1 && result.result === 'FAIL') {
    const failing = firstFailure(result)!; // a FAIL result has a failing probe: readSmokeResult checked the counts
    const counts = { failed: result.failed, total: result.total };
    return { result: 'FAIL', first: describeProbe(failing), counts };
  }
  const counts = `${result.failed}/${result.total} failed`;
  const problem = `smoke exited ${run.code}, but its result says ${result.result} (${counts})`;
  return run.code === 1 ? { result: 'FAIL', first: problem } : { result: 'ERROR', problem };
}
