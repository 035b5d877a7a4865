// The backend's start-up against the commit before its device thread (issue 42: 1.1–1.6 s there, 2.0–2.1 s with the
// thread awaited before listening): spawn → `/api/ready` 200, the old tree and the working tree in alternating runs,
// as `npm start` runs it (tsx) and compiled to JavaScript (startup-trees.ts); and a connected device service
// connected again after its backend is killed and started anew on the same port, old backend and ours alike.
import { performance } from 'node:perf_hooks';
import type { BenchRow, Scenario } from './scenario.ts';
import { interleaved, median } from './scenario.ts';
import { spawnService, TEST_DEVICE_TOKEN } from '../support/spawn-service.ts';
import { spawnProcess, stopAll, type Spawned } from '../support/spawn-process.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { waitFor } from '../support/deadline.ts';
import { freePort } from '../../tools/free-port.ts';
import { createStartupTrees } from './startup-trees.ts';

/** The last commit before the device thread (issue 42's baseline). */
export const BEFORE_THREAD = '1241930';

interface Backend {
  /** `node --import tsx backend/main.ts` (`npm start`), or `node backend/main.js` in a compiled tree. */
  tree: string;
  compiled: boolean;
}

const ms = (value: number) => `${Math.round(value)} ms`;

/** Starts a backend on `port`, its metrics on `metricsPort` (not yet answering when this returns). */
function spawnBackend({ tree, compiled }: Backend, mongoUri: string, [port, metricsPort]: number[]): Spawned {
  const args = compiled ? ['backend/main.js'] : ['--import', 'tsx', 'backend/main.ts'];
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    MONGODB_URI: mongoUri,
    DEVICE_TOKEN: TEST_DEVICE_TOKEN,
    // Given, so neither side asks git for its commit.
    RELEASE_ID: 'bench',
  };
  return spawnProcess(process.execPath, args, { cwd: tree, env });
}

/** Polls `url` every 5 ms until it answers 200; the ms since `start`. A process that exits meanwhile fails it. */
async function until200(url: string, start: number, what: string, proc?: Spawned): Promise<number> {
  const answered = async () => {
    if (proc && proc.child.exitCode !== null)
      throw new Error(`exited with ${proc.child.exitCode}: ${proc.stderr.at(-1)}`);
    return (await fetch(url).catch(() => undefined))?.status === 200;
  };
  await waitFor(answered, { timeout: 30_000, interval: 5, what });
  return performance.now() - start;
}

/** One start: spawn → `/api/ready` 200 (and, for a backend that has one, `/api/ready/devices` 200). */
async function startOnce(backend: Backend, mongoUri: string, devicesCheck: boolean) {
  const ports = [await freePort(), await freePort()];
  const port = ports[0]!;
  const start = performance.now();
  const proc = spawnBackend(backend, mongoUri, ports);
  try {
    const ready = await until200(`http://127.0.0.1:${port}/api/ready`, start, 'the backend ready', proc);
    const url = `http://127.0.0.1:${port}/api/ready/devices`;
    const devices = devicesCheck ? await until200(url, start, 'its device path ready', proc) : ready;
    return { ready, devices };
  } finally {
    await proc.stop();
  }
}

async function startupRow(label: string, old: Backend, ours: Backend, mongoUri: string, rounds: number) {
  const runs = await interleaved(
    rounds,
    () => startOnce(ours, mongoUri, true),
    () => startOnce(old, mongoUri, false),
  );
  const ratio = median(runs.ours.map((run, i) => run.ready / runs.baseline[i]!.ready));
  const oursReady = median(runs.ours.map((r) => r.ready));
  return {
    scenario: `backend spawn → /api/ready 200, ${label} (${rounds} alternating runs, median of per-run ratios)`,
    baseline: `${BEFORE_THREAD} (no device thread) ${ms(median(runs.baseline.map((r) => r.ready)))}`,
    ours: `${ms(oursReady)}; /api/ready/devices 200 at ${ms(median(runs.ours.map((r) => r.devices)))}`,
    ratio: `${ratio.toFixed(2)}×`,
    target: '≤ 1.2×',
    ok: ratio <= 1.2,
  } satisfies BenchRow;
}

/** A device service connected to `backend`; the backend killed and started again on its port: ms until connected. */
async function reconnectOnce(backend: Backend, mongoUri: string): Promise<number> {
  const ports = [await freePort(), await freePort()];
  const port = ports[0]!;
  let proc = spawnBackend(backend, mongoUri, ports);
  const device = await spawnService('device/main.ts', {
    env: { NODE_ENV: 'local', BACKEND_URL: `http://127.0.0.1:${port}`, DEVICE_ID: 'bench-restart' },
  });
  const ready = `${device.url}/api/ready`;
  const connected = async () => (await fetch(ready)).status === 200;
  try {
    await waitFor(connected, { timeout: 30_000, what: 'the device connected' });
    const start = performance.now();
    proc.child.kill('SIGKILL');
    await proc.exited;
    proc = spawnBackend(backend, mongoUri, ports);
    await waitFor(async () => !(await connected()), { timeout: 10_000, interval: 5, what: 'the device disconnected' });
    return await until200(ready, start, 'the device connected again');
  } finally {
    await Promise.all([proc.stop(), device.stop()]);
  }
}

const backendStartup: Scenario = async ({ quick }) => {
  const rounds = quick ? 3 : 9;
  const trees = createStartupTrees();
  try {
    const mongo = await startMongoProcess(await freePort());
    const old = { tree: trees.source(BEFORE_THREAD), compiled: false };
    const ours = { tree: trees.source(), compiled: false };
    const oldJs = { tree: trees.compiled(old.tree), compiled: true };
    const oursJs = { tree: trees.compiled(ours.tree), compiled: true };
    // One start of each first, outside the time: tsx's cache and the page cache warm for both alike.
    for (const backend of [old, ours, oldJs, oursJs]) await startOnce(backend, mongo.uri, false);
    const rows = [
      await startupRow('as `npm start` runs it (tsx)', old, ours, mongo.uri, rounds),
      await startupRow('compiled to JavaScript (the image without Node 24)', oldJs, oursJs, mongo.uri, rounds),
    ];
    const restarts = await interleaved(
      quick ? 2 : 5,
      () => reconnectOnce(ours, mongo.uri),
      () => reconnectOnce(old, mongo.uri),
    );
    const oursMs = median(restarts.ours);
    rows.push({
      scenario: `a connected device service connected again after its backend is killed and restarted (tsx, median)`,
      baseline: `${BEFORE_THREAD} ${ms(median(restarts.baseline))}`,
      ours: ms(oursMs),
      ratio: `${(oursMs / median(restarts.baseline)).toFixed(2)}×`,
      target: '≤ 3 s',
      ok: oursMs <= 3000,
    });
    return rows;
  } finally {
    await stopAll();
    trees.remove();
  }
};

export default backendStartup;
