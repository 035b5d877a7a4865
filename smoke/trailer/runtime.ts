// Finds a usable container runtime: docker or podman on PATH, with a reachable daemon and a compose command; when
// there is none, quotes the line of `docker info` (or `podman info`) that says why.
import { explain, runCommand, type CommandResult } from '../../tools/child-process.ts';

export type RuntimeCheck = { ok: true; runtime: string } | { ok: false; reason: string };

const RUNTIMES = ['docker', 'podman'];

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

// Lines that never explain the failure: docker's summary of its own errors, warnings, and blank lines.
const NOISE = [/^errors pretty printing info$/i, /^WARNING:/, /\blevel=(warn|warning|info|debug)\b/];
// The prefixes docker (ERROR:) and podman (Error:) put before an error; the quote leaves them out.
const ERROR_PREFIX = /^(ERROR|Error):\s*/;
// Words of a cause: the daemon or socket cannot be reached or used.
const CAUSE = new RegExp(
  [
    'cannot connect',
    'unable to connect',
    'permission denied',
    'connection refused',
    'no such file',
    'error during connect',
    'is the docker daemon running',
    'cannot set up namespace',
    'dial (unix|tcp)',
  ].join('|'),
  'i',
);

/**
 * The line of a failed `info` that says why, among warnings before it and summaries after it. The best line in
 * this order: an `Error:` line naming a cause, any line naming one, any `Error:` line, then the first line that
 * is not noise. Undefined when the command said nothing useful.
 */
function runtimeCause({ stdout, stderr }: Pick<CommandResult, 'stdout' | 'stderr'>): string | undefined {
  const said = (text: string) =>
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line && !NOISE.some((re) => re.test(line)));
  const lines = said(stderr).length ? said(stderr) : said(stdout);
  const prefixed = lines.filter((line) => ERROR_PREFIX.test(line));
  const pick =
    prefixed.find((line) => CAUSE.test(line)) ?? lines.find((line) => CAUSE.test(line)) ?? prefixed[0] ?? lines[0];
  return pick?.replace(ERROR_PREFIX, '');
}
