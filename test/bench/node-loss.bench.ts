// Losing a node, timed: deploy/swarm/stack.yaml on a 3-node swarm of scripts/swarm-nodes.sh (the set-up of
// test/containers/swarm-nodes.container.ts), and in each round the worker whose backend replica holds the device's
// socket killed, then restored. Three times per round, each from the kill: the lb's HAProxy logging that replica
// DOWN, Swarm running a replacement on a surviving node (engine timestamps), and the device connected again through
// the lb (its readiness's `since`). Needs root and an Engine (`eval "$(bash scripts/container-engine.sh)"`), and no
// other swarm of that script up: without them the rows say why and carry no verdict.
import type { BenchRow, Scenario } from './scenario.ts';
import { median } from './scenario.ts';
import { waitFor } from '../support/deadline.ts';
import { createSwarmStack, type SwarmStack } from '../containers/support/swarm-stack.ts';
import { deviceSettled } from '../containers/support/device-settled.ts';
import * as nodes from '../containers/support/node-swarm.ts';

const NODES = 3;
const ROWS = {
  down: "the lb marks a killed node's replica down (from the kill to HAProxy's `is DOWN`)",
  replaced: 'Swarm runs a replacement on a surviving node (from the kill)',
  reconnected: 'the device, whose socket was on it, connected again through the lb (from the kill)',
};

interface Round {
  downMs: number;
  replacedMs: number;
  reconnectedMs: number;
}

/** Kills the node of the replica holding the device's socket; the three times; the node back afterwards. */
async function loseOne(stack: SwarmStack): Promise<Round> {
  const victim = await nodes.socketOnWorker(stack);
  const killedAt = Date.now();
  await nodes.scriptOk('--kill', String(victim.node));
  const replacement = await waitFor(
    async () => {
      const now = (await nodes.placed(stack)).filter((task) => task.node !== victim.node);
      return now.length === 2 ? now : undefined;
    },
    { timeout: 90_000, interval: 250, what: `a replacement for the replica on node ${victim.node}` },
  );
  const fresh = (await stack.tasks('backend')).filter((task) => replacement.some((t) => t.id === task.id));
  const device = await deviceSettled(await stack.url('device', 3003), 60_000);
  const downAt = await nodes.markedDownAt(stack, killedAt - 1000);
  if (!Number.isFinite(downAt)) throw new Error('the lb logged no replica DOWN after the kill');
  if (device.backendSince < killedAt) throw new Error("the device's socket did not move: it was not on that node");
  await nodes.restore(stack, victim.node, NODES);
  return {
    downMs: downAt - killedAt,
    replacedMs: Math.max(...fresh.map((task) => task.since)) - killedAt,
    reconnectedMs: device.backendSince - killedAt,
  };
}

function rows(rounds: Round[]): BenchRow[] {
  const of = (key: keyof Round) => rounds.map((round) => round[key]);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const figure = (key: keyof Round) =>
    `${seconds(median(of(key)))} (median of ${rounds.length}: ${of(key).map(seconds).join(', ')})`;
  const down = median(of('downMs'));
  const reconnected = median(of('reconnectedMs'));
  return [
    {
      scenario: ROWS.down,
      baseline: 'its checks: inter 0.5 s × fall 2 + timeout 0.5 s = 1.5 s',
      ours: figure('downMs'),
      ratio: `${(down / 1500).toFixed(2)}×`,
      target: '≤ 3 s',
      ok: down <= 3000,
    },
    { scenario: ROWS.replaced, baseline: '-', ours: figure('replacedMs'), ratio: '-', target: '-', ok: null },
    {
      scenario: ROWS.reconnected,
      baseline: '-',
      ours: figure('reconnectedMs'),
      ratio: '-',
      // The lb cuts the socket when it marks the replica down; the device retries within its 2 s backoff.
      target: '≤ 5 s',
      ok: reconnected <= 5000,
    },
  ];
}

const nodeLoss: Scenario = async ({ quick }) => {
  const reason = await nodes.nodesUnavailable();
  if (reason) {
    const skipped = (scenario: string): BenchRow => ({
      scenario,
      baseline: '-',
      ours: `skipped: ${reason}`,
      ratio: '-',
      target: '-',
      ok: null,
    });
    return Object.values(ROWS).map(skipped);
  }
  const stack = createSwarmStack('nodeloss', {}, [], nodes.MANAGER);
  let up = false;
  try {
    await nodes.startNodes(stack, NODES, () => (up = true));
    const rounds: Round[] = [];
    for (let i = 0; i < (quick ? 1 : 3); i++) rounds.push(await loseOne(stack));
    return rows(rounds);
  } finally {
    if (up) await nodes.stopNodes(stack);
  }
};

export default nodeLoss;
