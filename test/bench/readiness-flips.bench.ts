// Database killed / silently hung / back → how fast /api/ready flips, and the driver's defaults for contrast.
import type { BenchRow, Scenario } from './scenario.ts';
import { median } from './scenario.ts';
import { msUntilStatus, ms } from './readiness-timer.ts';
import { spawnService, root } from '../support/spawn-service.ts';
import { startMongoProcess, type MongoProcess } from '../support/mongo-process.ts';
import { spawnProcess, stopAll } from '../support/spawn-process.ts';
import { freePort } from '../../tools/free-port.ts';
import { sleep, waitFor } from '../support/deadline.ts';

const BOUNDS = { kill: 250, hang: 3000, back: 2000 };

const readinessFlips: Scenario = async ({ quick }) => {
  const cycles = quick ? 2 : 5;
  const contrastCapMs = quick ? 12_000 : 75_000;
  try {
    // The contrast first: its database hangs while ours is measured, and a hung process costs no CPU.
    const contrast = await startContrast();
    contrast.mongo.signal('SIGSTOP');
    const hungAt = Date.now();

    const mongoPort = await freePort();
    let mongo = await startMongoProcess(mongoPort);
    const backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: mongo.uri } });
    const ready = `${backend.url}/api/ready`;
    await msUntilStatus(ready, 200, 10_000);
    const took = { kill: [] as number[], hang: [] as number[], restart: [] as number[], resume: [] as number[] };
    for (let cycle = 0; cycle < cycles; cycle++) {
      // The driver starts streaming one heartbeat interval (500 ms) after it connects; measure from then on.
      await mongo.streaming();
      mongo.child.kill('SIGKILL');
      took.kill.push(await msUntilStatus(ready, 503, 5000));
      mongo = await startMongoProcess(mongoPort); // timed from the moment it listens again
      took.restart.push(await msUntilStatus(ready, 200, 5000));
      await mongo.streaming();
      mongo.signal('SIGSTOP');
      took.hang.push(await msUntilStatus(ready, 503, 8000));
      mongo.signal('SIGCONT');
      took.resume.push(await msUntilStatus(ready, 200, 5000));
    }

    const row = (scenario: string, values: number[], bound: number): BenchRow => ({
      scenario: `${scenario} (median of ${values.length}, max)`,
      baseline: '-',
      ours: `${ms(median(values))}, max ${ms(Math.max(...values))}`,
      ratio: `${(median(values) / bound).toFixed(2)} of bound`,
      target: `≤ ${ms(bound)}`,
      ok: median(values) <= bound,
    });
    const back = [...took.restart, ...took.resume];
    const rows = [
      row('database killed → /api/ready 503', took.kill, BOUNDS.kill),
      row('database hung (SIGSTOP) → /api/ready 503', took.hang, BOUNDS.hang),
      {
        ...row('database back (restart, SIGCONT) → /api/ready 200', back, BOUNDS.back),
        ours: `restart ${ms(median(took.restart))}, SIGCONT ${ms(median(took.resume))}, max ${ms(Math.max(...back))}`,
      },
    ];

    const gone = await contrast.waitDisconnected(hungAt, contrastCapMs);
    const ours = median(took.hang);
    rows.push({
      scenario: "database hung (SIGSTOP) → noticed: the driver's defaults (10 s heartbeat, 30 s connect timeout)",
      baseline: gone === undefined ? `> ${ms(contrastCapMs)} (wait capped)` : ms(gone),
      ours: ms(ours),
      ratio:
        gone === undefined ? `> ${(contrastCapMs / ours).toFixed(0)}× sooner` : `${(gone / ours).toFixed(0)}× sooner`,
      target: 'shows the ~40 s gap',
      ok: gone === undefined ? null : gone >= 30_000,
    });
    return rows;
  } finally {
    await stopAll();
  }
};

/**
 * A stand-in watched by the backend's monitor with the driver's default timings
 * (test/bench/fixtures/default-monitor.ts).
 */
async function startContrast() {
  const mongo: MongoProcess = await startMongoProcess();
  const monitor = spawnProcess(process.execPath, ['--import', 'tsx', 'test/bench/fixtures/default-monitor.ts'], {
    cwd: root,
    env: { ...process.env, MONGODB_URI: mongo.uri },
  });
  const states = () =>
    monitor.stdout.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { state: string; at: number });
  await waitFor(() => states().at(-1)?.state === 'connected', { timeout: 15_000, what: 'default-monitor connected' });
  await mongo.streaming({ timeout: 15_000 });
  return {
    mongo,
    /** Milliseconds from `since` until the monitor reported the database gone, or undefined past the cap. */
    async waitDisconnected(since: number, capMs: number): Promise<number | undefined> {
      const seen = () => states().find((s) => s.state === 'disconnected' && s.at >= since);
      while (!seen() && Date.now() - since < capMs) await sleep(100);
      const found = seen();
      return found ? found.at - since : undefined;
    },
  };
}

export default readinessFlips;
