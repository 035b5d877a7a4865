// Readings stored per second, end to end: lines into a socat pty → the real device service (spool, frames) → the
// real backend → the stand-in's acknowledged write → the ack back at the device. The baseline is the same pty and
// device against a backend that acknowledges from memory, without a database (fixtures/memory-ack-backend.ts).
import type { BenchRow, Scenario } from './scenario.ts';
import { interleaved, median } from './scenario.ts';
import { fmt } from './load.ts';
import { startReadingsPath, type ReadingsPath } from './readings-path.ts';
import { spawnService } from '../support/spawn-service.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { stopAll } from '../support/spawn-process.ts';
import { waitFor } from '../support/deadline.ts';

const WARM_UP = 10_000;

/** Readings a second: `count` lines written at once, from the first write to the device's log of the last ack. */
async function storedPerSecond(path: ReadingsPath, count: number): Promise<number> {
  const target = path.acked().seq + count;
  const start = Date.now();
  await path.write(count);
  const { time } = await waitFor(() => (path.acked().seq >= target ? path.acked() : undefined), {
    timeout: 120_000,
    interval: 10,
    what: `${count} readings acknowledged`,
  });
  return (count / Math.max(1, time - start)) * 1000;
}

const readingsThroughput: Scenario = async ({ quick }) => {
  // A round takes about a second: even the quick run can afford several, and a median of one would be noise.
  const rounds = quick ? 5 : 9;
  // Fewer lines, and the fixed cost of a round (the first frame's round trip, the pty's buffers) swamps the rate.
  const count = 20_000;
  const paths: ReadingsPath[] = [];
  try {
    const mongo = await startMongoProcess();
    const backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: mongo.uri } });
    const memory = await spawnService('test/bench/fixtures/memory-ack-backend.ts', {});
    const ours = await startReadingsPath(backend.url);
    const baseline = await startReadingsPath(memory.url);
    paths.push(ours, baseline);
    // Warm-up, both: the first thousands of readings run while V8 still compiles the backend and the stand-in.
    await storedPerSecond(ours, WARM_UP);
    await storedPerSecond(baseline, WARM_UP);
    const rates = await interleaved(
      rounds,
      () => storedPerSecond(ours, count),
      () => storedPerSecond(baseline, count),
    );
    const rate = { ours: median(rates.ours), baseline: median(rates.baseline) };
    const ratio = rate.ours / rate.baseline;
    const row: BenchRow = {
      scenario:
        `readings stored/s end to end: pty → device → backend → database ack ` +
        `(${fmt(count)} lines at once, median of ${rounds})`,
      baseline: `acked from memory ${fmt(rate.baseline)}/s`,
      ours: `${fmt(rate.ours)}/s`,
      ratio: `${ratio.toFixed(2)}×`,
      target: '≥ 0.50×',
      ok: ratio >= 0.5,
    };
    return [row];
  } finally {
    for (const path of paths) await path.stop();
    await stopAll();
  }
};

export default readingsThroughput;
