// A single-node swarm for the swarm tests: the engine's own when it is already one, else initialised here and never
// left. `docker swarm leave` makes the Engine forget the DNS names of the containers on every network, swarm or not
// (moby/moby#45144; Engine 26 here): a compose project running beside (another container test's, or a developer's)
// could then no longer reach its database by name. The swarm stays until whoever owns the engine leaves it.
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

export type SwarmAccess = { ok: true } | { ok: false; reason: string };

const swarmState = async () => {
  const info = await docker(['info', '--format', '{{.Swarm.LocalNodeState}} {{.Swarm.ControlAvailable}}'], 20_000);
  const [state, manager] = info.stdout.trim().split(' ');
  return { info, state, manager: manager === 'true' };
};

/**
 * A swarm to deploy on: `ok` (the engine is a swarm manager, made one here when it was in no swarm), or the reason
 * there is none (no engine, an engine that is a swarm worker, an init that failed).
 */
export async function acquireSwarm(): Promise<SwarmAccess> {
  const { info, state, manager } = await swarmState();
  if (info.code !== 0) return { ok: false, reason: `no Docker Engine answers: ${explain('docker info', info)}` };
  if (state === 'active' && manager) return { ok: true };
  if (state === 'active')
    return { ok: false, reason: 'this engine is a swarm worker; stacks are deployed on a manager' };
  if (state !== 'inactive') return { ok: false, reason: `the engine's swarm state is "${state}"` };
  const init = await docker(['swarm', 'init', '--advertise-addr', '127.0.0.1']);
  // Another clone's test on the same engine may have initialised it a moment earlier.
  if (init.code !== 0 && !(await swarmState()).manager)
    return { ok: false, reason: `docker swarm init failed: ${explain('docker swarm init', init)}` };
  console.log('  this engine is now a single-node swarm, and stays one (test/containers/support/swarm.ts says why)');
  return { ok: true };
}
