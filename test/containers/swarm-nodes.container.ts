// Lose a node, lose nothing: deploy/swarm/stack.yaml on a 3-node swarm made by scripts/swarm-nodes.sh (node 1 the
// manager, with the database, device, lb and frontend; the two backend replicas spread over the others). The worker
// whose replica holds the device's socket is killed (dockerd and containers SIGKILLed), and later another is cut off
// (its link down, everything on it running on). Each time, under a request loop through the lb: no request fails once
// the lb has marked the lost replica down, which takes at most LB_DOWN_BOUND_MS; Swarm starts a replacement on a
// surviving node; the device reconnects and every reading is stored once; the node comes back, rejoins, and no
// backend container runs twice. Between the two, a rolling update and a rollback across the nodes, 0 failed. Then a
// worker killed while the device's backlog waits for its ack. Last, node 1 itself is killed: what cannot survive
// (the only manager, the database and the lb's address), shown.
// Its own deadline, since it starts a swarm, loads the images into every node and loses four of them:
// test-deadline: 900 s
// Its three Engines take both cores while they start and load the images: the swarm files' time bounds must not
// share the machine with them (swarm-heal's replica was replaced after 88 s, bound 30 s, beside it), so it takes
// their turn too, though it never uses the Engine's own swarm:
// test-exclusive: engine-swarm
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { waitFor } from '../support/deadline.ts';
import { docker, dockerOk } from './support/swarm.ts';
import { createSwarmStack, type UpdateStatus } from './support/swarm-stack.ts';
import { createRequestLoop, describeFailures, failures, type Answer } from './support/request-loop.ts';
import { sequenceProblems, storedReadings } from './support/stored-readings.ts';
import { CONVERGE_MS } from './support/swarm-suite.ts';
import { deviceSettled, deviceState } from './support/device-settled.ts';
import {
  MANAGER,
  markedDownAt,
  nodeSocket,
  nodesUnavailable,
  placed,
  restore as restoreNode,
  scriptOk,
  serverStateLines,
  socketOnWorker,
  socketReplica,
  startNodes,
  stopNodes,
  swarmNodes,
  type Placed,
} from './support/node-swarm.ts';

const test = suite('swarm across nodes');
const NODES = 3;
/** HAProxy's checks: inter 0.5 s × fall 2 + timeout check 0.5 s = 1.5 s, with room for a loaded machine. */
const LB_DOWN_BOUND_MS = 3000;
const REPLACED_MS = 90_000;
const stack = createSwarmStack(import.meta.filename, {}, [], MANAGER);

const reason = await nodesUnavailable();
if (reason) console.log(`skipped: ${reason}`);
const nodesTest = reason ? test.skip : test;

const restore = (k: number) => restoreNode(stack, k, NODES);

/**
 * Runs `body` with node `k` lost, then brings the node back and says in how many ms; also when `body` failed, so
 * the tests after a failed one still start from 3 nodes rather than fail for want of one.
 */
async function thenBack<T>(k: number, body: () => Promise<T>): Promise<[T, number]> {
  let value: T;
  try {
    value = await body();
  } catch (error) {
    await restore(k).catch((failed: Error) => console.error(`  node ${k} not back after a failure: ${failed.message}`));
    throw error;
  }
  return [value, await restore(k)];
}

/** The device connected through the lb again, nothing waiting for an ack, and every reading stored once. */
async function deviceWhole(): Promise<number> {
  await deviceSettled(await stack.url('device', 3003), 60_000);
  const readings = await storedReadings(await stack.url('lb', 3001));
  assert.equal(sequenceProblems(readings), []);
  return readings.length;
}

interface Loss {
  victim: Placed;
  failedAfterDown: Answer[];
  answers: Answer[];
  downMs: number;
  replacedMs: number;
  /** The nodes the 2 replicas run on afterwards. */
  nodesAfter: number[];
  /** What the lb logged about its replicas meanwhile, for a failure's message. */
  lbSaid: string;
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
        const now = (await placed(stack)).filter((task) => task.node !== victim.node);
        return now.length === 2 ? now : undefined;
      },
      { timeout: REPLACED_MS, interval: 500, what: `a replacement for the replica on node ${victim.node}` },
    );
    // A few more seconds of requests against the new placement.
    await new Promise((resolve) => setTimeout(resolve, 3000));
  } finally {
    await loop.stop();
  }
  const downAt = await markedDownAt(stack, lostAt - 1000);
  const said = await serverStateLines(stack, lostAt - 1000);
  const lbSaid = `lost at ${new Date(lostAt).toISOString()}; the lb said:\n${said.join('\n')}`;
  assert.ok(Number.isFinite(downAt), `the lb logged the lost replica DOWN (${lbSaid})`);
  const fresh = (await stack.tasks('backend')).filter((task) => replacement.some((t) => t.id === task.id));
  const replacedAt = Math.max(...fresh.map((task) => task.since));
  return {
    victim,
    answers: loop.answers,
    failedAfterDown: failures(loop.answers).filter((answer) => answer.sentAt >= downAt),
    downMs: downAt - lostAt,
    replacedMs: replacedAt - lostAt,
    nodesAfter: replacement.map((task) => task.node),
    lbSaid,
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
  const times = await startNodes(stack, NODES, () => (ownSwarm = true)).catch((error: unknown) => {
    console.error(`set-up failed: ${(error as Error).message}`);
    throw error;
  });
  // Swarm's default heartbeat (5 s) takes ~20 s to call a lost node down; at 2 s each loss here is replaced
  // sooner, which only shortens the waits: the bench (test/bench/node-loss.bench.ts) times the default.
  await dockerOk(['swarm', 'update', '--dispatcher-heartbeat', '2s']);
  console.log(`  set up: ${NODES} nodes with the images in ${times.nodesMs} ms, converged ${times.convergedMs} ms in`);
});

// Only a swarm this file started is removed again: a run refused because another one's swarm is up leaves it be.
let ownSwarm = false;

test.after(async () => {
  if (ownSwarm) await stopNodes(stack);
});

nodesTest('a second --nodes while the swarm is up is refused with one line, the swarm untouched', async () => {
  const result = await swarmNodes('--nodes', '2');
  assert.is(result.code, 1);
  assert.is(result.stdout, '');
  assert.match(result.stderr, /^swarm-nodes: a 3-node swarm is already up under .*; --stop removes it\n$/);
  assert.is((await dockerOk(['node', 'ls', '-q'])).split('\n').filter(Boolean).length, NODES);
});

nodesTest('the backend replicas run on two different nodes', async () => {
  const tasks = await placed(stack);
  assert.is(tasks.length, 2);
  assert.is(new Set(tasks.map((task) => task.node)).size, 2, JSON.stringify(tasks));
});

nodesTest('a killed worker: the lb drops its replica, Swarm replaces it, the device loses nothing', async () => {
  const victim = await socketOnWorker(stack);
  const [[loss, stored], back] = await thenBack(victim.node, async () => {
    const lost = await loseNode(victim, '--kill');
    assert.ok(lost.downMs <= LB_DOWN_BOUND_MS, `marked down after ${lost.downMs} ms; ${lost.lbSaid}`);
    assert.is(lost.failedAfterDown.length, 0, `${describeFailures(lost.failedAfterDown)}\n${lost.lbSaid}`);
    return [lost, await deviceWhole()] as const;
  });
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
  const spread = await placed(stack);
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
  const socket = await socketReplica(stack);
  const tasks = await placed(stack);
  const victim = tasks.find((task) => task.address === socket && task.node !== 1) ?? tasks.find((t) => t.node !== 1);
  assert.ok(victim, `a replica on a worker: ${JSON.stringify(tasks)}`);
  const [[loss, stored], back] = await thenBack(victim.node, async () => {
    const lost = await loseNode(victim, '--cut');
    assert.ok(lost.downMs <= LB_DOWN_BOUND_MS, `marked down after ${lost.downMs} ms; ${lost.lbSaid}`);
    assert.is(lost.failedAfterDown.length, 0, `${describeFailures(lost.failedAfterDown)}\n${lost.lbSaid}`);
    return [lost, await deviceWhole()] as const;
  });
  console.log(
    `  measured: ${report('cut off', loss)}; device socket ${victim.address === socket ? 'was' : 'was not'} ` +
      `on it; ${stored} readings stored once; link up, the orphan stopped, in ${back} ms`,
  );
});

// The drain's unsafe moment is a batch sent and not yet acknowledged: a backlog of one reading a second drains in one
// frame within milliseconds, too soon to aim a kill at, so the database is paused to hold that moment open. The
// replica keeps the device's batch unstored (its insert waits on the database), its node is killed, and with no
// replica ready the backlog builds in the spool; the database back, the device drains it through a survivor. A
// reading the dead replica's insert still delivered to the database is resent by the device and stored once.
nodesTest(
  "a worker killed holding the device's unacknowledged backlog: drained elsewhere, each reading once",
  async () => {
    const victim = await socketOnWorker(stack);
    const device = await stack.url('device', 3003);
    const [database] = await stack.running('database');
    const storedBefore = (await storedReadings(await stack.url('lb', 3001))).length;
    let held = 0;
    let spooled = 0;
    const [stored, back] = await thenBack(victim.node, async () => {
      await dockerOk(['pause', database!.container]);
      try {
        held = await waitFor(
          async () => {
            const state = await deviceState(device);
            return state?.backend === 'connected' && state.unacknowledged > 0 ? state.unacknowledged : undefined;
          },
          { timeout: 10_000, interval: 100, what: 'a reading sent to the replica and not acknowledged' },
        );
        await scriptOk('--kill', String(victim.node));
        spooled = await waitFor(
          async () => {
            const state = await deviceState(device);
            const growing = state && state.backend !== 'connected' && state.unacknowledged >= held + 3;
            return growing ? state.unacknowledged : 0;
          },
          { timeout: 30_000, interval: 200, what: 'the backlog growing in the spool with no replica ready' },
        );
      } finally {
        await dockerOk(['unpause', database!.container]);
      }
      const whole = await deviceWhole();
      assert.ok(whole >= storedBefore + spooled, `${whole} stored, ${storedBefore} before and ${spooled} spooled`);
      return whole;
    });
    console.log(
      `  measured: node ${victim.node} killed with ${held} reading(s) sent to its replica and unacknowledged; ` +
        `${spooled} held in the spool, then drained through the lb: ${stored} readings stored once; ` +
        `node back, no task twice, in ${back} ms`,
    );
  },
);

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
