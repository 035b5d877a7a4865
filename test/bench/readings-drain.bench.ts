// A backlog of 10,000 readings after a database outage: the stand-in is hung (SIGSTOP) until the backend reports it
// gone, the device reads 10,000 lines from its pty meanwhile, then the database returns (SIGCONT); timed until the
// device's liveness body says nothing is unacknowledged.
import type { BenchRow, Scenario } from './scenario.ts';
import { median } from './scenario.ts';
import { ms } from './readiness-timer.ts';
import { startReadingsPath, type ReadingsPath } from './readings-path.ts';
import { spawnService } from '../support/spawn-service.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { stopAll } from '../support/spawn-process.ts';
import { waitFor } from '../support/deadline.ts';

const BACKLOG = 10_000;
const BOUND_MS = 10_000;

const readingsDrain: Scenario = async ({ quick }) => {
  const rounds = quick ? 1 : 3;
  let path: ReadingsPath | undefined;
  try {
    const mongo = await startMongoProcess();
    const backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: mongo.uri } });
    const ready = async () => (await fetch(`${backend.url}/api/ready`, { signal: AbortSignal.timeout(2000) })).status;
    // Info level: the liveness body is polled every 20 ms, and each poll would be a debug line.
    path = await startReadingsPath(backend.url, { logLevel: 'info' });
    const drained = [] as number[];
    const databaseBack = [] as number[];
    for (let round = 0; round < rounds; round++) {
      await waitFor(async () => (await ready()) === 200 && (await path!.unacknowledged()) === 0, {
        timeout: 30_000,
        what: 'backend ready, nothing unacknowledged',
      });
      await mongo.streaming();
      mongo.signal('SIGSTOP');
      await path.write(BACKLOG);
      await waitFor(async () => (await path!.unacknowledged()) === BACKLOG, {
        timeout: 60_000,
        what: `${BACKLOG} readings held by the device`,
      });
      // An outage as the backend lives it: its database readiness is gone, its writes fail and back off.
      await waitFor(async () => (await ready()) === 503, { timeout: 10_000, what: 'backend 503 (database hung)' });
      mongo.signal('SIGCONT');
      const start = performance.now();
      let back: number | undefined;
      await waitFor(
        async () => {
          if (back === undefined && (await ready()) === 200) back = performance.now() - start;
          return (await path!.unacknowledged()) === 0;
        },
        { timeout: 120_000, interval: 20, what: 'the backlog acknowledged' },
      );
      drained.push(performance.now() - start);
      databaseBack.push(back ?? drained.at(-1)!);
    }
    const took = median(drained);
    const row: BenchRow = {
      scenario:
        `database back (SIGCONT) → device backlog of ${BACKLOG.toLocaleString('en-US')} empty ` +
        `(median of ${rounds}, max)`,
      baseline: '-',
      ours: `${ms(took)}, max ${ms(Math.max(...drained))} (backend ready again after ${ms(median(databaseBack))})`,
      ratio: `${(took / BOUND_MS).toFixed(2)} of bound`,
      target: `≤ ${ms(BOUND_MS)}`,
      ok: took <= BOUND_MS,
    };
    return [row];
  } finally {
    await path?.stop();
    await stopAll();
  }
};

export default readingsDrain;
