// Runs the smoke against a target (addresses given, or the local stack's `npm start -- --once`) and sums up what it
// showed: its exit code and the result it wrote with --json (smoke/result.ts), never the lines it printed for people.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failingChecks } from '../../lib/health-judge.ts';
import { explain, runCommand, type CommandResult } from '../../tools/child-process.ts';
import { entryArgs } from '../../tools/node-entry.ts';
import { projectRoot as root } from '../../tools/project-root.ts';
import { readSmokeResult, type ReadResult } from '../result.ts';
import type { ProbeRecord, SmokeResult, SmokeVerdict } from '../types.ts';

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
  /** At most this long for the whole run, when less than the smoke's own allowance. */
  limitMs?: number;
}

/** The smoke's verdict, or ERROR where it gave none: it could not run (its exit 2), or left no result to trust. */
export type SmokeOutcome =
  /** `retried`: probes that passed only after a failed attempt. `record`: the result as the smoke wrote it. */
  | { result: Extract<SmokeVerdict, 'PASS'>; total: number; retried: number; record?: SmokeResult }
  /**
   * `first`: the first failing probe and its cause, or why there is none to name. When the result could be read:
   * `counts`, the `failing` probes as it wrote them, and the failure report it wrote (`report`).
   */
  | {
      result: Extract<SmokeVerdict, 'FAIL'>;
      first: string;
      counts?: { failed: number; total: number };
      failing?: ProbeRecord[];
      report?: string | null;
      record?: SmokeResult;
    }
  | { result: 'ERROR'; problem: string };

// Four services start, become ready, then a browser loads the page; generous on a busy machine.
const LOCAL_TIMEOUT_MS = 240_000;

/** The smoke CLI against these addresses. */
export async function smokeAgainst(
  targets: SmokeTargets,
  { artifacts, probeTimeoutMs, env, limitMs = Infinity }: SmokeOptions,
): Promise<SmokeOutcome> {
  const args = [...entryArgs('smoke/cli.ts', env), '--frontend', targets.frontend];
  args.push('--backend', targets.backend);
  if (targets.device) args.push('--device', targets.device);
  args.push('--artifacts', artifacts, '--timeout', String(probeTimeoutMs));
  // Four probes plus a browser start; the limit only guards against a smoke CLI that never ends.
  const timeoutMs = Math.max(1, Math.min(probeTimeoutMs * 6 + 60_000, limitMs));
  return withResultFile('smoke-trailer-', async (jsonFile) => {
    const run = await runCommand(process.execPath, [...args, '--json', jsonFile], { env, cwd: root, timeoutMs });
    const read = run.code === 0 || run.code === 1 ? await readSmokeResult(jsonFile) : undefined;
    return smokeOutcome(run, read, timeoutMs);
  });
}

/**
 * The local stack's one-shot smoke (`npm start -- --once`), the extra check when compose is unavailable. The stack
 * hands SMOKE_JSON to its smoke as --json; an ERROR's problem says whether the stack ran at all.
 */
export async function smokeLocalStack(env: NodeJS.ProcessEnv): Promise<SmokeOutcome> {
  return withResultFile('smoke-trailer-local-', async (jsonFile) => {
    const run = await runCommand(process.execPath, [...entryArgs('dev/stack.ts', env), '--once'], {
      env: { ...env, SMOKE_JSON: jsonFile },
      cwd: root,
      timeoutMs: LOCAL_TIMEOUT_MS,
    });
    // 0 and 1 are the smoke's own exit codes; anything else is the stack's (or the smoke could not run).
    if (run.code === 0 || run.code === 1) {
      const outcome = smokeOutcome(run, await readSmokeResult(jsonFile), LOCAL_TIMEOUT_MS);
      if (outcome.result !== 'ERROR') return outcome;
      return { result: 'ERROR', problem: `did not give a verdict (${outcome.problem})` };
    }
    // The stack says why it stopped on a line of its own; prefer it to the services' log noise.
    const said = `${run.stderr}\n${run.stdout}`.split('\n').reverse();
    const reason = said.find((line) => line.startsWith('stack: ') && !line.startsWith('stack: stopped'));
    const why = reason?.slice(7) ?? explain('npm start -- --once', run, 'last', LOCAL_TIMEOUT_MS);
    return { result: 'ERROR', problem: `did not run (${why})` };
  });
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
  if (run.code === 0 && result.result === 'PASS')
    return { result: 'PASS', total: result.total, retried: retriedProbes(result), record: result };
  if (run.code === 1 && result.result === 'FAIL') {
    // A FAIL result has a failing probe: readSmokeResult checked the counts.
    const failing = result.probes.filter((probe) => probe.result === 'FAIL');
    const counts = { failed: result.failed, total: result.total };
    const first = describeProbe(failing[0]!);
    return { result: 'FAIL', first, counts, failing, report: result.report, record: result };
  }
  const counts = `${result.failed}/${result.total} failed`;
  const problem = `smoke exited ${run.code}, but its result says ${result.result} (${counts})`;
  return run.code === 1 ? { result: 'FAIL', first: problem } : { result: 'ERROR', problem };
}

/**
 * Probes that passed after a failed attempt (`--wait`). Read defensively: a result written before `attempts` was
 * required counts none.
 */
const retriedProbes = (result: SmokeResult) =>
  result.probes.filter((probe) => probe.result === 'PASS' && typeof probe.attempts === 'number' && probe.attempts > 1)
    .length;

/**
 * `[READY] backend: database disconnected`: the form a FAIL trailer uses. The readiness checks the service judges
 * not fine name the cause where the body listed them; otherwise the probe's reason (`HTTP 503 …`, `connection
 * refused …`).
 */
const describeProbe = (probe: ProbeRecord) => {
  const failing = failingChecks(probe.checks ?? {}, probe.failing);
  const cause = failing.length
    ? failing.map(([check, state]) => `${check} ${String(state)}`).join(', ')
    : (probe.reason ?? 'failed (no reason given)');
  return `[${probe.kind}] ${probe.target}: ${cause}`;
};

/** Runs `use` with the path of a result file in a fresh temporary directory, removed afterwards. */
async function withResultFile<T>(prefix: string, use: (jsonFile: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await use(join(dir, 'result.json'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
