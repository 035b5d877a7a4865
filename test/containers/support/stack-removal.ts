// `docker stack rm` carried through to the end, on the Engine DOCKER_HOST names: the command returns as soon as it
// has asked for the removals, while the stack's containers still stop (each within its stop_grace_period).
import { waitFor } from '../../support/deadline.ts';
import { docker, dockerOk } from './swarm.ts';
import { stackLeftovers } from './stack-leftovers.ts';

const REMOVED_MS = 60_000;
/** How often a `docker stack rm` that reported a failure is run again. */
const RETRY_MS = 2000;

/** `docker stack rm`: '' when it removed everything it found, else what it said (its failures, one line). */
async function stackRm(name: string): Promise<string> {
  const result = await docker(['stack', 'rm', name]);
  return result.code === 0 ? '' : result.stderr.trim().replaceAll('\n', ' | ') || `exit code ${result.code}`;
}

const count = async (args: string[]) => (await dockerOk(args)).split('\n').filter(Boolean).length;

/**
 * Removes stack `name` and waits until no service, network or container of it is left. Swarm refuses to remove
 * a network while a task attached to it is still meant to run ("network … is in use by task …"), and it marks the
 * tasks of a removed service for removal only after the service is gone, asynchronously: `docker stack rm` asks for
 * the network right after the services, and a manager that is slow to catch up (one just restarted) makes it lose
 * that race. Swarm never retries a refused removal, so the network would stay for good: the command is run again,
 * once no service is left, until it succeeds. A removal that does not end names what was left.
 */
export async function removeStack(name: string): Promise<void> {
  const label = `label=com.docker.stack.namespace=${name}`;
  let said = await stackRm(name);
  let saidAt = Date.now();
  const gone = waitFor(
    async () => {
      const services = await count(['service', 'ls', '-q', '--filter', label]);
      const networks = await count(['network', 'ls', '-q', '--filter', label]);
      const containers = await count(['ps', '-aq', '--filter', label]);
      if (said && services === 0 && networks > 0 && Date.now() - saidAt >= RETRY_MS) {
        said = await stackRm(name);
        saidAt = Date.now();
      }
      return services + networks + containers === 0;
    },
    { timeout: REMOVED_MS, interval: 250, what: `stack ${name} removed` },
  );
  await gone.catch(async (error: Error) => {
    const rm = said ? `; docker stack rm said: ${said}` : '';
    throw new Error(`${error.message}; left: ${await stackLeftovers(name)}${rm}`);
  });
}
