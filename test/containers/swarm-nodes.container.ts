// Lose a node, lose nothing: deploy/swarm/stack.yaml on a 3-node swarm made by scripts/swarm-nodes.sh (node 1 the
// manager, with the database, device, lb and frontend; the two backend replicas spread over the others). The worker
// whose replica holds the device's socket is killed (dockerd and containers SIGKILLed), and later another is cut off
// (its link down, everything on it running on). Each time, under a request loop through the lb: no request fails once
// the lb has marked the lost replica down, which takes at most LB_DOWN_BOUND_MS; Swarm starts a replacement on a
// surviving node; the device reconnects and every reading is stored once; the node comes back, rejoins, and no
// backend container runs twice. Between the two, a rolling update and a rollback across the nodes, 0 failed. Last,
// node 1 itself is killed: what cannot survive (the only manager, the database and the lb's address), shown.
// Its own deadline, since it starts a swarm, loads the images into every node and loses three of them:
// test-deadline: 900 s
import { suite } from 'uvu';
import { existsSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { root } from '../support/spawn-service.ts';
import { waitFor } from '../support/deadline.ts';
import { runCommand } from '../../tools/child-process.ts';
import { docker, dockerOk } from './support/swarm.ts';
import { createSwarmStack, type UpdateStatus } from './support/swarm-stack.ts';
import { createRequestLoop, describeFailures, failures, type Answer } from './support/request-loop.ts';
import { sequenceProblems, storedReadings } from './support/stored-readings.ts';
import { CONVERGE_MS } from './support/swarm-suite.ts';
import { deviceSettled } from './support/device-settled.ts';
import { onTerminate } from '../support/on-terminate.ts';

const test = suite('swarm across nodes');
const NODES = 3;
const MANAGER = '192.168.213.11';
const SCRIPT = `${root}/scripts/swarm-nodes.sh`;
/** HAProxy's checks: inter 0.5 s × fall 2 + timeout check 0.5 s = 1.5 s, with room for a loaded machine. */
const LB_DOWN_BOUND_MS = 3000;
const REPLACED_MS = 90_000;
const mainHost = process.env.DOCKER_HOST;
const stack = createSwarmStack(import.meta.filename, {}, [], MANAGER);

/** Why this file cannot run here, or '' when it can. */
async function unavailable(): Promise<string> {
  if (process.getuid?.() !== 0) return 'needs root for network namespaces and a dockerd per node';
  const info = await docker(['info', '--format', '{{.ServerVersion}}'], 20_000);
  if (info.code !== 0) return 'no Docker Engine answers';
  // The swarm is the machine's (as the Engine is): another clone's run using it is left alone.
  if (existsSync('/var/lib/service-health-kit/swarm/nodes')) return 'a swarm of scripts/swarm-nodes.sh is already up';
  return '';
}
const reason = await unavailable();
if (reason) console.log(`skipped: ${reason}`);
const nodesTest = reason ? test.skip : test;

const swarmNodes = (...args: string[]) =>
  runCommand('bash', [SCRIPT, ...args], { timeoutMs: 10 * 60_000, env: { ...process.env, DOCKER_HOST: mainHost } });

async function scriptOk(...args: string[]): Promise<string> {
  const result = await swarmNodes(...args);
  if (result.code !== 0) throw new Error(`swarm-nodes.sh ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout;
}

const nodeSocket = (k: number) => `unix:///var/lib/service-health-kit/swarm/node-${k}/docker.sock`;

interface Placed {
  id: string;
  node: number;
  address: string;
}

/**
 * The backend's running tasks: which node each runs on and its address on the stack's network. A task on a node
 * that is lost stays `running` in the manager's view (nobody reports otherwise) while its desired state turns to
 * shutdown: only tasks meant to run count.
 */
async function placed(): Promise<Placed[]> {
  const ids = (await stack.tasks('backend'))
    .filter((task) => task.state === 'running' && task.desired === 'running')
    .map((task) => task.id);
  if (ids.length === 0) return [];
  const raw = JSON.parse(await dockerOk(['inspect', ...ids])) as {
    ID: string;
    NodeID: string;
    NetworksAttachments?: { Addresses: string[] }[];
  }[];
  return Promise.all(
    raw.map(async (task) => {
      const host = await dockerOk(['node', 'inspect', '--format', '{{.Description.Hostname}}', task.NodeID]);
      const address = task.NetworksAttachments?.[0]?.Addresses[0]?.split('/')[0] ?? '';
      return { id: task.ID, node: Number(host.trim().replace('shk-node-', '')), address };
    }),
  );
}

async function lbContainer(): Promise<string> {
  const [task] = await stack.running('lb');
  return task!.container;
}

/** The replica whose /metrics counts the device's socket open, asked from the lb's container (its port 9464). */
async function socketReplica(): Promise<string> {
  return waitFor(
    async () => {
      for (const task of await placed()) {
        const url = `http://${task.address}:9464/metrics`;
        const metrics = await docker(['exec', await lbContainer(), 'curl', '-fsS', '-m', '2', url]);
        if (/^backend_device_sockets_open [1-9]/m.test(metrics.stdout)) return task.address;
      }
      return undefined;
    },
    { timeout: 30_000, interval: 500, what: "a replica holding the device's socket" },
  );
}

/**
 * The replica holding the device's socket, on a worker. Spread puts the 2 replicas on 2 of the 3 nodes, at times
 * node 1 among them, which must survive here: then its replica is SIGKILLed (node 1's Engine is the manager's, so
 * `docker kill` reaches it) and the device reconnects through the lb to the one on a worker.
 */
async function socketOnWorker(): Promise<Placed> {
  const socket = await socketReplica();
  const holder = (await placed()).find((task) => task.address === socket);
  if (holder && holder.node !== 1) return holder;
  const [task] = (await stack.tasks('backend')).filter((t) => t.id === holder?.id);
  assert.ok(task, `the task holding the device's socket (${socket})`);
  await dockerOk(['kill', task.container]);
  return waitFor(
    async () => {
      const now = await socketReplica();
      const found = (await placed()).find((t) => t.address === now);
      return found && found.node !== 1 ? found : undefined;
    },
    { timeout: 60_000, interval: 500, what: "the device's socket on a worker's replica" },
  );
}

/** When the lb logged the replica at `address` DOWN (HAProxy names it backendN; the log line carries no address). */
async function markedDownAt(since: number): Promise<number> {
  const logs = await docker(['logs', '--timestamps', '--since', new Date(since).toISOString(), await lbContainer()]);
  const line = `${logs.stdout}\n${logs.stderr}`.split('\n').find((l) => /Server replicas\/backend\d+ is DOWN/.test(l));
  return line ? Date.parse(line.split(' ')[0]!) : NaN;
}

/** The device connected through the lb again, nothing waiting for an ack, and every reading stored once. */
async function deviceWhole(): Promise<number> {
  const device = await stack.url('device', 3003);
  await deviceSettled(device, 60_000);
  const readings = await storedReadings(await stack.url('lb', 3001));
  assert.equal(sequenceProblems(readings), []);
  return readings.length;
}

/** Backend containers running on every node that answers: after a node came back, as many as the service asks. */
async function backendContainersEverywhere(): Promise<number> {
  let count = 0;
  for (let k = 1; k <= NODES; k++) {
    const out = await docker(
      ['ps', '-q', '--filter', `label=com.docker.swarm.service.name=${stack.service('backend')}`],
      20_000,
      { ...process.env, DOCKER_HOST: nodeSocket(k) },
    );
    count += out.stdout.split('\n').filter(Boolean).length;
  }
  return count;
}

interface Loss {
  victim: Placed;
  failedAfterDown: Answer[];
  answers: Answer[];
  downMs: number;
  replacedMs: number;
  /** The nodes the 2 replicas run on afterwards. */
  nodesAfter: number[];
}

/** Loses the node of `victim` with `how` under a request loop; returns once Swarm runs 2 replicas elsewhere. */
async function loseNode(victim: Placed, how: '--kill' | '--cut'): Promise<Loss> {
  const loop = createRequestLoop(await stack.url('lb', 3001), ['/api/ready', '/api/health']);
  const lostAt = Date.now();
  let replacement: Placed[];
  try {
    await scriptOk(how, String(victim.node));
    replacement = await waitFor(
      async () => {
        // A cut-off node's task still counts as running for the manager: only the others are counted.
        const now = (await placed()).filter((task) => task.node !== victim.node);
        return now.length === 2 ? now : undefined;
      },
      { timeout: REPLACED_MS, interval: 500, what: `a replacement for the replica on node ${victim.node}` },
    );
    // A few more seconds of requests against the new placement.
    await new Promise((resolve) => setTimeout(resolve, 3000));
  } finally {
    await loop.stop();
  }
  const downAt = await markedDownAt(lostAt - 1000);
  assert.ok(Number.isFinite(downAt), 'the lb logged the lost replica DOWN');
  const fresh = (await stack.tasks('backend')).filter((task) => replacement.some((t) => t.id === task.id));
  const replacedAt = Math.max(...fresh.map((task) => task.since));
  return {
    victim,
    answers: loop.answers,
    failedAfterDown: failures(loop.answers).filter((answer) => answer.sentAt >= downAt),
    downMs: downAt - lostAt,
    replacedMs: replacedAt - lostAt,
    nodesAfter: replacement.map((task) => task.node),
  };
}

function report(what: string, loss: Loss): string {
  return (
    `${what} node ${loss.victim.node}: the lb marked its replica down after ${loss.downMs} ms; ` +
    `${loss.answers.length} requests, ${failures(loss.answers).length} failed before that ` +
    `(${describeFailures(loss.answers).replaceAll('\n', '; ') || 'none'}), ` +
    `${loss.failedAfterDown.length} after; replacement running ${loss.replacedMs} ms after the loss ` +
    `(replicas on nodes ${loss.nodesAfter.join(' and ')})`
  );
}

/** Brings node `k` back and waits until it is Ready and no backend container runs twice. */
async function restore(k: number): Promise<number> {
  const at = Date.now();
  await scriptOk('--restore', String(k));
  await waitFor(
    async () =>
      (await dockerOk(['node', 'ls', '--format', '{{.Hostname}} {{.Status}}'])).includes(`shk-node-${k} Ready`),
    { timeout: 120_000, interval: 500, what: `node ${k} Ready again` },
  );
  await waitFor(async () => (await backendContainersEverywhere()) === 2, {
    timeout: 60_000,
    interval: 500,
    what: 'two backend containers on all nodes together',
  });
  return Date.now() - at;
}

/** A backend update under a request loop: `args` to `docker service update` or `rollback`; the answers. */
async function underLoad(args: string[], done: UpdateStatus['State']): Promise<Answer[]> {
  const loop = createRequestLoop(await stack.url('lb', 3001), ['/api/ready', '/api/health']);
  try {
    await dockerOk(['service', ...args, '--detach', stack.service('backend')]);
    await waitFor(async () => (await stack.inspect<UpdateStatus | null>('backend', '.UpdateStatus'))?.State === done, {
      timeout: 180_000,
      interval: 500,
      what: `the backend's update ${done}`,
    });
  } finally {
    await loop.stop();
  }
  return loop.answers;
}

test.before(async () => {
  if (reason) return;
  // uvu reports a hook's error only as 0 passed; say what it was.
  await setUp().catch((error: unknown) => {
    console.error(`set-up failed: ${(error as Error).message}`);
    throw error;
  });
});

let ownSwarm = false;

async function setUp(): Promise<void> {
  await stack.build();
  const images = ['backend', 'frontend', 'device', 'lb'].map((name) => `shk-test-swarm-${name}`);
  images.push(process.env.MONGO_IMAGE ?? 'mongo:8.0');
  const exports = await scriptOk('--nodes', String(NODES), ...images);
  // Only a swarm this file started is removed again: a run refused because another one's swarm is up leaves it be.
  ownSwarm = true;
  // Stopped at its deadline, the file still removes every node (the `after` hook does otherwise).
  onTerminate(() => swarmNodes('--stop'));
  // Every docker command from here on, the stack's deploy too, goes to the swarm's manager.
  process.env.DOCKER_HOST = stack.env.DOCKER_HOST = /DOCKER_HOST=(\S+)/.exec(exports)![1]!;
  await stack.deploy();
  await stack.converged(CONVERGE_MS * 2);
}

test.after(async () => {
  if (reason) return;
  // The stack (its secret files with it), then the whole swarm; then the shell's own Engine again.
  try {
    if (ownSwarm) await stack.remove();
  } finally {
    if (ownSwarm) await scriptOk('--stop');
  }
  if (mainHost === undefined) delete process.env.DOCKER_HOST;
  else process.env.DOCKER_HOST = mainHost;
});

nodesTest('a second --nodes while the swarm is up is refused with one line, the swarm untouched', async () => {
  const result = await swarmNodes('--nodes', '2');
  assert.is(result.code, 1);
  assert.is(result.stdout, '');
  assert.match(result.stderr, /^swarm-nodes: a 3-node swarm is already up under .*; --stop removes it\n$/);
  assert.is((await dockerOk(['node', 'ls', '-q'])).split('\n').filter(Boolean).length, NODES);
});

nodesTest('the backend replicas run on two different nodes', async () => {
  const tasks = await placed();
  assert.is(tasks.length, 2);
  assert.is(new Set(tasks.map((task) => task.node)).size, 2, JSON.stringify(tasks));
});

nodesTest('a killed worker: the lb drops its replica, Swarm replaces it, the device loses nothing', async () => {
  const victim = await socketOnWorker();
  const loss = await loseNode(victim, '--kill');
  assert.ok(loss.downMs <= LB_DOWN_BOUND_MS, `marked down after ${loss.downMs} ms`);
  assert.is(loss.failedAfterDown.length, 0, describeFailures(loss.failedAfterDown));
  const stored = await deviceWhole();
  const back = await restore(victim.node);
  console.log(
    `  measured: ${report('killed', loss)}; ${stored} readings stored once; node back, no task twice, in ${back} ms`,
  );
});

nodesTest('a rolling update and a rollback across the nodes: 0 failed, replicas spread again', async () => {
  const update = await underLoad(
    ['update', '--force', '--no-resolve-image', '--env-add', 'RELEASE_ID=nodes'],
    'completed',
  );
  assert.is(failures(update).length, 0, describeFailures(update));
  const spread = await placed();
  assert.is(
    new Set(spread.map((task) => task.node)).size,
    2,
    `the update spread them again: ${JSON.stringify(spread)}`,
  );
  const rollback = await underLoad(['rollback'], 'rollback_completed');
  assert.is(failures(rollback).length, 0, describeFailures(rollback));
  const stored = await deviceWhole();
  console.log(
    `  measured: update ${update.length} requests, rollback ${rollback.length}, 0 failed; replicas on nodes ` +
      `${spread.map((task) => task.node).join(' and ')}; ${stored} readings stored once`,
  );
});

nodesTest('a worker cut off: the same, and once it is back its orphaned replica stops', async () => {
  const socket = await socketReplica();
  const tasks = await placed();
  const victim = tasks.find((task) => task.address === socket && task.node !== 1) ?? tasks.find((t) => t.node !== 1);
  assert.ok(victim, `a replica on a worker: ${JSON.stringify(tasks)}`);
  const loss = await loseNode(victim, '--cut');
  assert.ok(loss.downMs <= LB_DOWN_BOUND_MS, `marked down after ${loss.downMs} ms`);
  assert.is(loss.failedAfterDown.length, 0, describeFailures(loss.failedAfterDown));
  const stored = await deviceWhole();
  const back = await restore(victim.node);
  console.log(
    `  measured: ${report('cut off', loss)}; device socket ${victim.address === socket ? 'was' : 'was not'} ` +
      `on it; ${stored} readings stored once; link up, the orphan stopped, in ${back} ms`,
  );
});

/** How a request through `base` ended: its status, or the error's code (ECONNREFUSED, TimeoutError). */
async function outcome(base: string): Promise<string> {
  return fetch(`${base}/api/health`, { signal: AbortSignal.timeout(3000) }).then(
    (response) => String(response.status),
    (error: { cause?: { code?: string }; name?: string }) => error.cause?.code ?? error.name ?? 'error',
  );
}

// What cannot survive, with evidence: node 1 holds the only manager, the database with its volume and the lb whose
// host port clients are given (docs/containers.md#losing-a-node). Last, since it takes the stack.
nodesTest('the manager, database and lb node lost: an outage until it is back', async () => {
  const lb = await stack.url('lb', 3001);
  const lostAt = Date.now();
  await scriptOk('--kill', '1');
  // The lb's address answers, but nothing listens there any more: refused, not retried anywhere.
  const through = await outcome(lb);
  assert.ok(through === 'ECONNREFUSED' || through === 'TimeoutError', `through the lb: ${through}`);
  // The workers have no manager to place anything: no task is rescheduled, whatever the stack file says.
  const asked = await docker(['node', 'ls'], 20_000, { ...process.env, DOCKER_HOST: nodeSocket(2) });
  assert.is(asked.code, 1);
  assert.match(asked.stderr, /not a swarm manager|no leader|could not be reached/i);
  const back = await restore(1);
  await stack.converged(CONVERGE_MS * 2);
  const again = await stack.url('lb', 3001);
  assert.is(await outcome(again), '200');
  console.log(
    `  measured: node 1 killed: through the lb ${through}; a worker asked for the nodes: ` +
      `"${asked.stderr.trim().split('\n')[0]}"; back, Ready and converged ${Date.now() - lostAt} ms after ` +
      `(dockerd up and its tasks placed in ${back} ms)`,
  );
});

test.run();
