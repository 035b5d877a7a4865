// /api/ready while 500 devices stream at full rate, against the same backend idle: readiness only reads state, so a
// busy writer must not make a probe wait. Probes go one at a time; idle and busy windows alternate, and the p99 of
// all busy probes is compared with that of all idle ones. The senders run in a process of their own
// (fixtures/sender-fleet.ts), so the bench's event loop, which times the probes, does nothing else.
import type { BenchRow, Scenario } from './scenario.ts';
import { fmt } from './load.ts';
import { root, spawnService } from '../support/spawn-service.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { spawnProcess, stopAll, type Spawned } from '../support/spawn-process.ts';
import { waitFor } from '../support/deadline.ts';
import { DEVICE_SEND_PACE } from '../../lib/device-protocol.ts';

const FLEET = 500;
const SENDING = { perFrame: 800, framesPerSecond: DEVICE_SEND_PACE.perSecond };
const RATIO_MAX = 3;
const P99_MAX_MS = 50;

/** The p-th percentile (0–100) of `values`. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Times `count` probes of `url`, one after the other; each must answer 200 within 5 s. `window` names them. */
async function probe(url: string, count: number, window: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const res = await fetch(url, { signal: AbortSignal.timeout(5000) }).catch((error: Error) => {
      throw new Error(`/api/ready, ${window} probe ${i + 1}: ${error.message}`);
    });
    const body = await res.text();
    times.push(performance.now() - start);
    if (res.status !== 200) throw new Error(`/api/ready, ${window} probe ${i + 1}: ${res.status} ${body}`);
  }
  return times;
}

/** The fleet's process; `make` gives every device `count` more readings, `settled` waits until all are acknowledged. */
function startFleet(backendUrl: string) {
  const proc: Spawned = spawnProcess(process.execPath, ['--import', 'tsx', 'test/bench/fixtures/sender-fleet.ts'], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      BACKEND_URL: backendUrl,
      FLEET: String(FLEET),
      PER_FRAME: String(SENDING.perFrame),
      FRAMES_PER_SECOND: String(SENDING.framesPerSecond),
    },
  });
  let made = 0;
  const settled = () =>
    proc.stdout.some((line) => line.startsWith('{') && (JSON.parse(line) as { settled?: number }).settled === made);
  return {
    make(count: number) {
      made += count;
      proc.child.stdin!.write(`${JSON.stringify({ make: count })}\n`);
    },
    async settled(timeout: number, what: string) {
      await waitFor(
        () => {
          if (proc.child.exitCode !== null) throw new Error(`the fleet exited with ${proc.child.exitCode}`);
          return settled();
        },
        { timeout, interval: 20, what },
      );
    },
  };
}

const readyUnderFleet: Scenario = async ({ quick }) => {
  const rounds = quick ? 2 : 5;
  const perWindow = quick ? 200 : 500;
  try {
    const mongo = await startMongoProcess();
    const backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: mongo.uri } });
    const ready = `${backend.url}/api/ready`;
    await waitFor(async () => (await fetch(ready)).status === 200, { what: 'backend ready' });
    const fleet = startFleet(backend.url);
    fleet.make(1);
    await fleet.settled(60_000, `${FLEET} connected`);
    await probe(ready, perWindow, 'warm-up');
    const idle: number[] = [];
    const busy: number[] = [];
    let streamed = 0;
    for (let round = 0; round < rounds; round++) {
      idle.push(...(await probe(ready, perWindow, 'idle')));
      // Every device at once, more than the window lasts: the writers are busy throughout the probes.
      fleet.make(400);
      streamed += 400 * FLEET;
      busy.push(...(await probe(ready, perWindow, 'busy')));
      await fleet.settled(180_000, 'the fleet acknowledged');
    }
    const p99 = { idle: percentile(idle, 99), busy: percentile(busy, 99) };
    const ratio = p99.busy / p99.idle;
    const row: BenchRow = {
      scenario:
        `/api/ready p99 while ${FLEET} devices stream (${fmt(streamed)} readings), ` +
        `${fmt(busy.length)} probes each side`,
      baseline: `idle ${p99.idle.toFixed(2)} ms (median ${percentile(idle, 50).toFixed(2)} ms)`,
      ours: `${p99.busy.toFixed(2)} ms (median ${percentile(busy, 50).toFixed(2)} ms)`,
      ratio: `${ratio.toFixed(2)}×`,
      target: `≤ ${RATIO_MAX}× and < ${P99_MAX_MS} ms`,
      ok: ratio <= RATIO_MAX && p99.busy < P99_MAX_MS,
    };
    return [row];
  } finally {
    await stopAll();
  }
};

export default readyUnderFleet;
