// Finds a usable container runtime: docker or podman on PATH, with a reachable daemon and a compose command.
import { explain, runCommand, type CommandResult } from './exec.ts';
import { runtimeCause } from './runtime-cause.ts';

export type RuntimeCheck = { ok: true; runtime: string } | { ok: false; reason: string };

export const RUNTIMES = ['docker', 'podman'];

// `docker info` hangs for a long time when the socket exists but nothing answers on it.
const PROBE_TIMEOUT_MS = 10_000;

export async function detectRuntime(env: NodeJS.ProcessEnv, timeoutMs = PROBE_TIMEOUT_MS): Promise<RuntimeCheck> {
  const problems: string[] = [];
  for (const runtime of RUNTIMES) {
    const info = await runCommand(runtime, ['info'], { env, timeoutMs });
    if (info.missing) continue;
    if (info.code !== 0) {
      // podman has no daemon of its own; its info fails for a remote connection or a broken rootless setup.
      const what = runtime === 'podman' ? 'podman info failed' : `${runtime} daemon unreachable`;
      problems.push(`${what} (${why(`${runtime} info`, info, timeoutMs)})`);
      continue;
    }
    const compose = await runCommand(runtime, ['compose', 'version'], { env, timeoutMs });
    if (compose.code !== 0) {
      problems.push(`${runtime} compose unavailable (${why(`${runtime} compose`, compose, timeoutMs)})`);
      continue;
    }
    return { ok: true, runtime };
  }
  if (problems.length === 0)
    return { ok: false, reason: `no container runtime (neither ${RUNTIMES.join(' nor ')} on PATH)` };
  return { ok: false, reason: problems.join('; ') };
}

// A run that ended on its own is quoted by the line that says why; a timeout or a failed start is described.
const why = (name: string, result: CommandResult, timeoutMs: number) =>
  (result.code !== null && runtimeCause(result)) || explain(name, result, 'first', timeoutMs);
