// A single-node swarm for the swarm tests: the engine's own when it is already one, else initialised here and left
// again afterwards, so a developer's swarm (or its absence) is as it was.
import { explain, runCommand, type CommandResult } from '../../../tools/child-process.ts';

const COMMAND_TIMEOUT_MS = 60_000;

export const docker = (
  args: string[],
  timeoutMs = COMMAND_TIMEOUT_MS,
  env?: NodeJS.ProcessEnv,
): Promise<CommandResult> => runCommand('docker', args, { timeoutMs, env });

/** Runs a docker command that must succeed; its stdout. */
export async function dockerOk(args: string[], timeoutMs = COMMAND_TIMEOUT_MS, env?: NodeJS.ProcessEnv) {
  const result = await docker(args, timeoutMs, env);
  if (result.code !== 0) throw new Error(`docker ${args.slice(0, 3).join(' ')}: ${explain('docker', result)}`);
  return result.stdout;
}

/**
 * `docker inspect` of objects that may be gone by the time it runs (Swarm prunes a slot's old tasks while they are
 * listed): the JSON of those still there; any other failure throws.
 */
export async function inspectExisting<T>(ids: string[]): Promise<T[]> {
  if (ids.length === 0) return [];
  const result = await docker(['inspect', ...ids]);
  const errors = result.stderr.split('\n').filter((line) => line.trim() !== '');
  if (result.code !== 0 && !errors.every((line) => line.startsWith('Error: No such object:')))
    throw new Error(`docker inspect: ${explain('docker', result)}`);
  return result.stdout.trim() === '' ? [] : (JSON.parse(result.stdout) as T[]);
}

export type SwarmAccess = { ok: true; release: () => Promise<void> } | { ok: false; reason: string };

/**
 * A swarm to deploy on: `ok` with `release()` (which leaves the swarm only if this call initialised it), or the
 * reason there is none (no engine, an engine that is a swarm worker, an init that failed).
 */
export async function acquireSwarm(): Promise<SwarmAccess> {
  const info = await docker(['info', '--format', '{{.Swarm.LocalNodeState}} {{.Swarm.ControlAvailable}}'], 20_000);
  if (info.code !== 0) return { ok: false, reason: `no Docker Engine answers: ${explain('docker info', info)}` };
  const [state, manager] = info.stdout.trim().split(' ');
  if (state === 'active' && manager === 'true') return { ok: true, release: async () => {} };
  if (state === 'active')
    return { ok: false, reason: 'this engine is a swarm worker; stacks are deployed on a manager' };
  if (state !== 'inactive') return { ok: false, reason: `the engine's swarm state is "${state}"` };
  const init = await docker(['swarm', 'init', '--advertise-addr', '127.0.0.1']);
  if (init.code !== 0) return { ok: false, reason: `docker swarm init failed: ${explain('docker swarm init', init)}` };
  return {
    ok: true,
    release: async () => {
      await dockerOk(['swarm', 'leave', '--force']);
    },
  };
}
