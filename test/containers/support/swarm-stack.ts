// One stack of deploy/swarm/stack.yaml for a swarm test: its own name, images built by compose under a test
// project's names, host ports picked by the engine, and a removal that waits until the stack's network is gone.
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { root } from '../../support/spawn-service.ts';
import { waitFor } from '../../support/deadline.ts';
import { onTerminate } from '../../support/on-terminate.ts';
import { docker, dockerOk, inspectExisting } from './swarm.ts';
import { writeDeploySecrets } from './deploy-secrets.ts';
import { removeStack } from './stack-removal.ts';
import { freePort } from '../../../tools/free-port.ts';

const BUILD_TIMEOUT_MS = 10 * 60_000;
/** The compose project the swarm tests build their images under (BACKEND_IMAGE and the others name them). */
const IMAGE_PROJECT = 'shk-test-swarm';
export const STACK_FILE = 'deploy/swarm/stack.yaml';
/** The tests' own addition to the stack: the lb's plain 3001 published too (the file says why). */
const PLAIN_PORT_FILE = 'test/containers/fixtures/swarm-plain-lb-port.yaml';

export interface Task {
  id: string;
  state: string;
  desired: string;
  container: string;
  error: string;
  /** When the engine last changed its state (ms since the epoch): for a running task, when it started running. */
  since: number;
}

interface RawTask {
  ID: string;
  DesiredState: string;
  Status: { Timestamp: string; State: string; Err?: string; ContainerStatus?: { ContainerID?: string } };
}

export interface UpdateStatus {
  State?: string;
  Message?: string;
}

/**
 * A stack named after the test file and the pid, e.g. `shk-swarmheal-4242`; `env` adds to the deploy's, `overlays`
 * are compose files deployed on top of the stack's (e.g. deploy/swarm/internal-tls.yaml), relative to the root.
 */
export function createSwarmStack(
  file: string,
  env: Record<string, string> = {},
  overlays: string[] = [],
  /** Where the host-mode ports are reached: the edge node's address on a multi-node swarm. */
  address = '127.0.0.1',
) {
  const name = `shk-${basename(file)
    .replace(/\.container\.ts$/, '')
    .replace(/[^a-z0-9]/g, '')}-${process.pid}`;
  // Tokens and the lb's certificate as files, for the stack's secrets (deploy/swarm/stack.yaml); removed with the
  // stack, and written anew for a deploy after that (the bench deploys the same stack several times).
  let secrets = writeDeploySecrets(name);
  const deployEnv: NodeJS.ProcessEnv = {
    ...process.env,
    SECRETS_DIR: secrets.dir,
    BACKEND_IMAGE: `${IMAGE_PROJECT}-backend`,
    FRONTEND_IMAGE: `${IMAGE_PROJECT}-frontend`,
    DEVICE_IMAGE: `${IMAGE_PROJECT}-device`,
    LB_IMAGE: `${IMAGE_PROJECT}-lb`,
    BACKEND_PORT: '0',
    FRONTEND_PORT: '0',
    DEVICE_PORT: '0',
    ...env,
  };
  const service = (short: string) => `${name}_${short}`;

  async function build(): Promise<void> {
    await dockerOk(
      [
        'compose',
        '--project-directory',
        root,
        '-p',
        IMAGE_PROJECT,
        '--profile',
        'device',
        '--profile',
        'swarm',
        'build',
      ],
      BUILD_TIMEOUT_MS,
      deployEnv,
    );
  }

  /** `docker stack deploy`; its output, for the no-op check. */
  /** Unregisters the removal a file stopped at its deadline runs (test/support/on-terminate.ts). */
  let forget: (() => void) | undefined;

  async function deploy(extra: Record<string, string> = {}): Promise<string> {
    forget ??= onTerminate(async () => {
      await remove();
      await removeVolumes();
    });
    // The lb's two host ports must differ to be kept apart when the files merge (Swarm keys ports by the published
    // one): the HTTPS one on a free port found here, the plain one (the fixture's 0) left to the engine.
    if (deployEnv.BACKEND_PORT === '0') deployEnv.BACKEND_PORT = String(await freePort());
    if (!existsSync(secrets.dir)) {
      secrets = writeDeploySecrets(name);
      deployEnv.SECRETS_DIR = secrets.dir;
    }
    return dockerOk(
      [
        'stack',
        'deploy',
        '--detach=true',
        '--resolve-image',
        'never',
        '-c',
        `${root}/${STACK_FILE}`,
        '-c',
        `${root}/${PLAIN_PORT_FILE}`,
        ...overlays.flatMap((overlay) => ['-c', `${root}/${overlay}`]),
        name,
      ],
      120_000,
      { ...deployEnv, ...extra },
    );
  }

  /** Every task of a service, old ones included (Swarm keeps a few per slot), from `docker inspect`. */
  async function tasks(short: string): Promise<Task[]> {
    const ids = (await dockerOk(['service', 'ps', service(short), '--no-trunc', '--quiet']))
      .split('\n')
      .filter(Boolean);
    const raw = await inspectExisting<RawTask>(ids);
    return raw.map((task) => ({
      id: task.ID,
      state: task.Status.State,
      desired: task.DesiredState,
      container: task.Status.ContainerStatus?.ContainerID ?? '',
      error: task.Status.Err ?? '',
      since: Date.parse(task.Status.Timestamp),
    }));
  }

  const running = async (short: string) => (await tasks(short)).filter((task) => task.state === 'running');

  async function inspect<T>(short: string, format: string): Promise<T> {
    return JSON.parse(await dockerOk(['service', 'inspect', '--format', `{{json ${format}}}`, service(short)])) as T;
  }

  /** http://ADDRESS:PORT of a service's host-mode port, read from its running task's container. */
  async function url(short: string, port: number): Promise<string> {
    const [task] = await running(short);
    if (!task) throw new Error(`${service(short)} has no running task`);
    const raw = await dockerOk([
      'inspect',
      '--format',
      `{{json (index .NetworkSettings.Ports "${port}/tcp")}}`,
      task.container,
    ]);
    const bindings = JSON.parse(raw) as { HostIp: string; HostPort: string }[] | null;
    const binding = bindings?.find((b) => b.HostIp === '0.0.0.0') ?? bindings?.[0];
    if (!binding) throw new Error(`${service(short)}:${port} is not published`);
    return `http://${address}:${binding.HostPort}`;
  }

  /**
   * Converged: every service runs as many tasks as it asks for (Swarm counts a task running once its health check
   * passed), and the load balancer has answered /api/ready 200 from as many replicas as the backend has.
   */
  async function converged(timeoutMs: number): Promise<void> {
    await waitFor(
      async () => {
        const out = await dockerOk([
          'service',
          'ls',
          '--filter',
          `label=com.docker.stack.namespace=${name}`,
          '--format',
          '{{.Replicas}}',
        ]);
        const counts = out.split('\n').filter(Boolean);
        return counts.length === 5 && counts.every((count) => /^(\d+)\/\1$/.test(count.split(' ')[0]!));
      },
      { timeout: timeoutMs, interval: 200, what: `every service of ${name} running` },
    );
    const replicas = (await running('backend')).length;
    const lb = await url('lb', 3001);
    const seen = new Set<string>();
    await waitFor(
      async () => {
        const response = await fetch(`${lb}/api/ready`, { signal: AbortSignal.timeout(1000) });
        if (response.status === 200) seen.add(response.headers.get('x-backend-address') ?? '');
        return seen.size >= replicas;
      },
      { timeout: timeoutMs, interval: 20, what: `/api/ready 200 from ${replicas} replicas through the load balancer` },
    );
  }

  /** `docker stack rm`, carried through until nothing of it is left (./stack-removal.ts); then its secret files. */
  async function remove(): Promise<void> {
    forget?.();
    forget = undefined;
    await removeStack(name);
    secrets.remove();
  }

  /**
   * Forgets the stack without removing it: its secret files go, and its removal when the file is stopped. For a swarm
   * removed whole right after (scripts/swarm-nodes.sh --stop), whose nodes take every container, network and volume
   * of the stack with them.
   */
  function discard(): void {
    forget?.();
    forget = undefined;
    secrets.remove();
  }

  /** Its volumes (`docker stack rm` leaves them, as it should for data); removed once its containers are gone. */
  async function removeVolumes(): Promise<void> {
    const volumes = (await dockerOk(['volume', 'ls', '-q', '--filter', `label=com.docker.stack.namespace=${name}`]))
      .split('\n')
      .filter(Boolean);
    if (volumes.length === 0) return;
    for (let attempt = 0; attempt < 20; attempt++) {
      if ((await docker(['volume', 'rm', ...volumes])).code === 0) return;
      await sleep(250); // a container that just ended may still hold one for a moment
    }
    throw new Error(`the volumes of ${name} could not be removed: ${volumes.join(', ')}`);
  }

  return {
    name,
    env: deployEnv,
    /** The secret files: the CA an HTTPS client of port 8443 trusts, and every secret's text. */
    get secrets() {
      return secrets;
    },
    service,
    build,
    deploy,
    tasks,
    running,
    inspect,
    url,
    converged,
    remove,
    discard,
    removeVolumes,
  };
}

export type SwarmStack = ReturnType<typeof createSwarmStack>;
