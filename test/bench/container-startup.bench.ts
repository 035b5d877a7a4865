// Start-up on a real Docker Engine, each against the same step done with plain docker commands: compose.yaml healthy
// (`docker compose up --wait`) and the swarm stack converged; the commit trailer end to end has a file of its own,
// trailer-end-to-end.bench.ts. Needs an engine (`eval "$(bash scripts/container-engine.sh)"`); without one its rows
// say so and carry no verdict.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchRow, Scenario } from './scenario.ts';
import { interleavedMedians } from './scenario.ts';
import { root } from '../support/spawn-service.ts';
import { acquireSwarm, docker, dockerOk } from '../containers/support/swarm.ts';
import { createSwarmStack } from '../containers/support/swarm-stack.ts';

const PROJECT = 'shk-bench-startup';
const env = { ...process.env, BACKEND_PORT: '0', FRONTEND_PORT: '0', DEVICE_PORT: '0' };
const compose = (args: string[], timeoutMs = 120_000) =>
  dockerOk(['compose', '--project-directory', root, '-p', PROJECT, ...args], timeoutMs, env);
const images = { backend: `${PROJECT}-backend`, frontend: `${PROJECT}-frontend` };

const since = (start: number) => Date.now() - start;

/** compose.yaml's database → backend → frontend, healthy: what `docker compose up --wait` does. */
async function composeUp(): Promise<number> {
  const start = Date.now();
  await compose(['up', '--detach', '--wait']);
  const ms = since(start);
  await compose(['down', '--volumes']);
  return ms;
}

/** The same three containers with plain `docker run`, each started once the one before is healthy. */
async function byHand(): Promise<number> {
  const network = `${PROJECT}-byhand`;
  const start = Date.now();
  await dockerOk(['network', 'create', network]);
  const names: string[] = [];
  const run = async (name: string, args: string[]) => {
    names.push(`${network}-${name}`);
    await dockerOk([
      'run',
      '-d',
      '--name',
      `${network}-${name}`,
      '--network',
      network,
      '--network-alias',
      name,
      ...args,
    ]);
    for (let i = 0; i < 600; i++) {
      const health = await dockerOk(['inspect', '--format', '{{.State.Health.Status}}', `${network}-${name}`]);
      if (health.trim() === 'healthy') return;
      await sleep(50);
    }
    throw new Error(`${name} not healthy by hand`);
  };
  const check = ['--health-interval', '30s', '--health-timeout', '10s', '--health-retries', '3'];
  await run('database', [
    ...check,
    '--health-start-period',
    '60s',
    '--health-start-interval',
    '0.5s',
    '--health-cmd',
    'mongosh --quiet --eval "quit(db.adminCommand(\'ping\').ok === 1 ? 0 : 1)"',
    process.env.MONGO_IMAGE ?? 'mongo:8.0',
  ]);
  await run('backend', ['-e', 'MONGODB_URI=mongodb://database:27017/service-health-kit', images.backend]);
  await run('frontend', ['-e', 'BACKEND_URL=http://backend:3001', images.frontend]);
  const ms = since(start);
  await docker(['rm', '-f', ...names]);
  await docker(['network', 'rm', network]);
  return ms;
}

const containerStartup: Scenario = async ({ quick }) => {
  const rounds = quick ? 1 : 3;
  const info = await docker(['info', '--format', '{{.ServerVersion}}'], 20_000);
  if (info.code !== 0) {
    const skipped = (scenario: string): BenchRow => ({
      scenario,
      baseline: '-',
      ours: 'skipped: no Docker Engine answers',
      ratio: '-',
      target: '-',
      ok: null,
    });
    return [skipped('compose up --wait healthy'), skipped('swarm stack converged')];
  }
  await compose(['--profile', 'device', 'build'], 600_000);
  await composeUp(); // warm: the images' layers in the page cache
  const up = await interleavedMedians(rounds, composeUp, byHand);
  const rows: BenchRow[] = [
    {
      scenario: `\`docker compose up --wait\`, database → backend → frontend healthy (median of ${rounds})`,
      baseline: `plain docker run, each once the one before is healthy ${(up.baseline / 1000).toFixed(1)} s`,
      ours: `${(up.ours / 1000).toFixed(1)} s`,
      ratio: `${(up.ours / up.baseline).toFixed(2)}×`,
      target: '≤ 5 s',
      ok: up.ours <= 5000,
    },
  ];
  rows.push(await swarmRow(rounds));
  return rows;
};

/** The swarm stack deployed until converged (every task running, each replica ready through the lb). */
async function swarmRow(rounds: number): Promise<BenchRow> {
  const access = await acquireSwarm();
  if (!access.ok) {
    const ours = `skipped: ${access.reason}`;
    return { scenario: 'swarm stack converged', baseline: '-', ours, ratio: '-', target: '≤ 15 s', ok: null };
  }
  const stack = createSwarmStack(`startup-${process.pid}`);
  await stack.build();
  const deploy = async () => {
    const start = Date.now();
    await stack.deploy();
    await stack.converged(120_000);
    const ms = since(start);
    await stack.remove();
    await stack.removeVolumes();
    return ms;
  };
  // The same five parts on one host, without an orchestrator: compose up --wait with the device profile.
  const plain = async () => {
    const start = Date.now();
    await compose(['--profile', 'device', 'up', '--detach', '--wait']);
    const ms = since(start);
    await compose(['--profile', 'device', 'down', '--volumes']);
    return ms;
  };
  await deploy();
  const times = await interleavedMedians(rounds, deploy, plain);
  return {
    scenario: `swarm stack converged: all tasks running, each replica ready through the lb (median of ${rounds})`,
    baseline: `the same parts with compose up --wait (device profile) ${(times.baseline / 1000).toFixed(1)} s`,
    ours: `${(times.ours / 1000).toFixed(1)} s`,
    ratio: `${(times.ours / times.baseline).toFixed(2)}×`,
    target: '≤ 15 s',
    ok: times.ours <= 15_000,
  };
}

export default containerStartup;
