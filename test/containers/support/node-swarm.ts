// The stack on a multi-node swarm of scripts/swarm-nodes.sh, as the node-loss test and its bench use it: the swarm
// made and removed, where the backend replicas run, which one holds the device's socket, when the lb marked one
// down, and a lost node back. Every docker command goes to the swarm's manager once it is up (DOCKER_HOST).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { root } from '../../support/spawn-service.ts';
import { waitFor } from '../../support/deadline.ts';
import { onTerminate } from '../../support/on-terminate.ts';
import { runCommand } from '../../../tools/child-process.ts';
import { docker, dockerOk, inspectExisting } from './swarm.ts';
import type { SwarmStack } from './swarm-stack.ts';
import { CONVERGE_MS } from './swarm-suite.ts';

/** Node 1's address: the manager, and where the lb's and device's host ports are published. */
export const MANAGER = '192.168.213.11';
const DIR = '/var/lib/service-health-kit/swarm';
const SCRIPT = `${root}/scripts/swarm-nodes.sh`;
/** The shell's own Engine, where the images are built and saved from. */
const mainHost = process.env.DOCKER_HOST;

export const swarmNodes = (...args: string[]) =>
  runCommand('bash', [SCRIPT, ...args], { timeoutMs: 10 * 60_000, env: { ...process.env, DOCKER_HOST: mainHost } });

export async function scriptOk(...args: string[]): Promise<string> {
  const result = await swarmNodes(...args);
  if (result.code !== 0) throw new Error(`swarm-nodes.sh ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout;
}

export const nodeSocket = (k: number) => `unix://${DIR}/node-${k}/docker.sock`;

/** Why a multi-node swarm cannot be made here, or '' when it can. */
export async function nodesUnavailable(): Promise<string> {
  if (process.getuid?.() !== 0) return 'needs root for network namespaces and a dockerd per node';
  const info = await docker(['info', '--format', '{{.ServerVersion}}'], 20_000);
  if (info.code !== 0) return 'no Docker Engine answers';
  // One per machine, as the Engine is: another run's swarm is left alone.
  const namespaces = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  if (existsSync(`${DIR}/nodes`) || /^shk-swarm-hub\b/m.test(namespaces)) {
    return 'a swarm of scripts/swarm-nodes.sh is already up';
  }
  return '';
}

/**
 * Builds the images, makes `nodes` nodes with them (`up` called once they are: the swarm is the caller's to remove
 * from then on), deploys the stack and waits until it converged; the times.
 */
export async function startNodes(
  stack: SwarmStack,
  nodes: number,
  up: () => void,
): Promise<{ nodesMs: number; convergedMs: number }> {
  await stack.build();
  const images = ['backend', 'frontend', 'device', 'lb'].map((name) => `shk-test-swarm-${name}`);
  images.push(process.env.MONGO_IMAGE ?? 'mongo:8.0');
  const startedAt = Date.now();
  const exports = await scriptOk('--nodes', String(nodes), ...images);
  const nodesMs = Date.now() - startedAt;
  up();
  // Stopped at its deadline, the run still removes every node (stopNodes does otherwise).
  onTerminate(() => swarmNodes('--stop'));
  process.env.DOCKER_HOST = stack.env.DOCKER_HOST = /DOCKER_HOST=(\S+)/.exec(exports)![1]!;
  await stack.deploy();
  await stack.converged(CONVERGE_MS * 2);
  return { nodesMs, convergedMs: Date.now() - startedAt };
}

/**
 * The whole swarm, and with it the stack; then the shell's own Engine again. The stack is not removed first: `--stop`
 * SIGKILLs every node and deletes its data root, which takes every container, network and volume of the stack with
 * it, so waiting for `docker stack rm` to finish there waits for nothing that matters, and after the manager was
 * killed and brought back it did not finish within a minute once (CI). Only its secret files are removed.
 */
export async function stopNodes(stack: SwarmStack): Promise<void> {
  try {
    stack.discard();
  } finally {
    await scriptOk('--stop');
    if (mainHost === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = mainHost;
  }
}

export interface Placed {
  id: string;
  node: number;
  address: string;
}

/**
 * The backend's running tasks: which node each runs on and its address on the stack's network. A task on a node
 * that is lost stays `running` in the manager's view (nobody reports otherwise) while its desired state turns to
 * shutdown: only tasks meant to run count.
 */
export async function placed(stack: SwarmStack): Promise<Placed[]> {
  const ids = (await stack.tasks('backend'))
    .filter((task) => task.state === 'running' && task.desired === 'running')
    .map((task) => task.id);
  const raw = await inspectExisting<{ ID: string; NodeID: string; NetworksAttachments?: { Addresses: string[] }[] }>(
    ids,
  );
  return Promise.all(
    raw.map(async (task) => {
      const host = await dockerOk(['node', 'inspect', '--format', '{{.Description.Hostname}}', task.NodeID]);
      const address = task.NetworksAttachments?.[0]?.Addresses[0]?.split('/')[0] ?? '';
      return { id: task.ID, node: Number(host.trim().replace('shk-node-', '')), address };
    }),
  );
}

async function lbContainer(stack: SwarmStack): Promise<string> {
  const [task] = await stack.running('lb');
  return task!.container;
}

/** The replica whose /metrics counts the device's socket open, asked from the lb's container (its port 9464). */
export async function socketReplica(stack: SwarmStack): Promise<string> {
  return waitFor(
    async () => {
      for (const task of await placed(stack)) {
        const url = `http://${task.address}:9464/metrics`;
        const metrics = await docker(['exec', await lbContainer(stack), 'curl', '-fsS', '-m', '2', url]);
        if (/^backend_device_sockets_open [1-9]/m.test(metrics.stdout)) return task.address;
      }
      return undefined;
    },
    { timeout: 30_000, interval: 500, what: "a replica holding the device's socket" },
  );
}

/**
 * The replica holding the device's socket, on a worker. Spread puts the 2 replicas on 2 of the 3 nodes, at times
 * node 1 among them (or both there, after a loss), which must survive here: then its replica is SIGKILLed (node 1's
 * Engine is the manager's, so `docker kill` reaches it), Swarm places its replacement on a node with fewer of them,
 * and the device reconnects through the lb; until the holder is on a worker, at most 3 times. It returns with both
 * replicas ready: losing the worker while a replacement still starts would leave none ready (the lb's own 503s).
 */
export async function socketOnWorker(stack: SwarmStack): Promise<Placed> {
  for (let kills = 0; ; kills++) {
    const socket = await socketReplica(stack);
    const holder = (await placed(stack)).find((task) => task.address === socket);
    if (holder && holder.node !== 1) return holder;
    assert.ok(kills < 3, `the device's socket still on node 1 after ${kills} replicas killed there (${socket})`);
    const [task] = (await stack.tasks('backend')).filter((t) => t.id === holder?.id);
    assert.ok(task, `the task holding the device's socket (${socket})`);
    await dockerOk(['kill', task.container]);
    await stack.converged(CONVERGE_MS * 2);
  }
}

/** The lb's lines on its replicas' state since `since` (DOWN, UP, an address from DNS), with Docker's timestamps. */
export async function serverStateLines(stack: SwarmStack, since: number): Promise<string[]> {
  const logs = await docker([
    'logs',
    '--timestamps',
    '--since',
    new Date(since).toISOString(),
    await lbContainer(stack),
  ]);
  return `${logs.stdout}\n${logs.stderr}`.split('\n').filter((line) => / Server [\w-]+\/backend\d+ /.test(line));
}

/** When the lb logged a replica DOWN after `since` (HAProxy names it backendN; the log line carries no address). */
export async function markedDownAt(stack: SwarmStack, since: number): Promise<number> {
  const line = (await serverStateLines(stack, since)).find((l) => /Server replicas\/backend\d+ is DOWN/.test(l));
  return line ? Date.parse(line.split(' ')[0]!) : NaN;
}

/** Backend containers running on every node that answers: after a node came back, as many as the service asks. */
async function backendContainersEverywhere(stack: SwarmStack, nodes: number): Promise<number> {
  let count = 0;
  for (let k = 1; k <= nodes; k++) {
    const out = await docker(
      ['ps', '-q', '--filter', `label=com.docker.swarm.service.name=${stack.service('backend')}`],
      20_000,
      { ...process.env, DOCKER_HOST: nodeSocket(k) },
    );
    count += out.stdout.split('\n').filter(Boolean).length;
  }
  return count;
}

/** Brings node `k` of `nodes` back and waits until it is Ready and no backend container runs twice; the ms. */
export async function restore(stack: SwarmStack, k: number, nodes: number): Promise<number> {
  const at = Date.now();
  await scriptOk('--restore', String(k));
  await waitFor(
    async () =>
      (await dockerOk(['node', 'ls', '--format', '{{.Hostname}} {{.Status}}'])).includes(`shk-node-${k} Ready`),
    { timeout: 120_000, interval: 500, what: `node ${k} Ready again` },
  );
  await waitFor(async () => (await backendContainersEverywhere(stack, nodes)) === 2, {
    timeout: 60_000,
    interval: 500,
    what: 'two backend containers on all nodes together',
  });
  return Date.now() - at;
}
