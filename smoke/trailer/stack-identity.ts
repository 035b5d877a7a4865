// What a compose stack was, for the evidence: the digest of the configuration compose resolved and the ids of the
// images its containers ran.
import { createHash } from 'node:crypto';
import { runCommand } from '../../tools/child-process.ts';

// Both outputs are read whole: a few KiB for this project's stack, so a bound far above that only stops a runaway.
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/** The project's compose command (`compose -f … -p <project>`), its environment, and the time left to run it. */
export interface StackCommand {
  runtime: string;
  compose: string[];
  env: NodeJS.ProcessEnv;
  /** The directory the build contexts were copied to, written as `.` in the digest. */
  copy?: string;
  left: (ms: number) => number;
}

/**
 * sha256 of the configuration compose resolved (`compose config`): the files, the environment, the build args.
 * The copy's path is written as `.`, so the same tree and settings give the same digest on any machine.
 */
export async function composeConfig(
  { runtime, compose, env, copy, left }: StackCommand,
  timeoutMs: number,
): Promise<string | null> {
  const run = await runCommand(runtime, [...compose, 'config'], {
    env,
    timeoutMs: left(timeoutMs),
    keepBytes: MAX_OUTPUT_BYTES,
  });
  // A digest of part of the configuration would name a configuration that never was.
  if (run.code !== 0 || run.truncated) return null;
  const text = copy ? run.stdout.split(copy).join('.') : run.stdout;
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** service → the id of the image its container runs (`compose images --format json`); empty when unread. */
export async function imageIds(
  { runtime, compose, env, left }: StackCommand,
  timeoutMs: number,
): Promise<Record<string, string>> {
  const args = [...compose, 'images', '--format', 'json'];
  const run = await runCommand(runtime, args, { env, timeoutMs: left(timeoutMs), keepBytes: MAX_OUTPUT_BYTES });
  try {
    const rows = JSON.parse(run.code === 0 && !run.truncated ? run.stdout : '[]') as {
      ContainerName?: string;
      ID?: string;
    }[];
    const ids: Record<string, string> = {};
    for (const row of Array.isArray(rows) ? rows : []) {
      const service = serviceOf(row.ContainerName ?? '', compose.at(-1)!);
      if (service && typeof row.ID === 'string') ids[service] = row.ID;
    }
    return ids;
  } catch {
    return {};
  }
}

// `service-health-kit-smoke-backend-1` → `backend`.
const serviceOf = (container: string, project: string) =>
  container.startsWith(`${project}-`) ? container.slice(project.length + 1).replace(/-\d+$/, '') : undefined;
