// A flood of one device token beside an honest device (test/faults/support/flood-run.ts): 10 and then 100 sockets,
// half at the message rate and half at three times it, for 10 s (5 s quick), against the real backend on a stand-in
// process. Per flood, the honest device's ack p50 and p99 (target p99 ≤ 250 ms) and the backend's RSS peak during it
// and 10 s after it, over the level taken warm before the first flood (targets + 64 MiB and + 16 MiB). Beside them,
// the honest device's p99 alone, just before the floods, as long as one: on a machine other work keeps busy, what
// the flood adds is the difference. The machine's 1-minute load average once each flood is over says how busy it was:
// the device thread runs at nice 10, so with other jobs' load the honest device waits for them too, flood or not.
import { loadavg } from 'node:os';
import type { BenchRow, Scenario } from './scenario.ts';
import { spawnService } from '../support/spawn-service.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { freePort } from '../../tools/free-port.ts';
import { stopAll } from '../support/spawn-process.ts';
import { sleep, waitFor } from '../support/deadline.ts';
import { rssMiB } from '../faults/support/process-stats.ts';
import { FLOOD_TOKENS, honestDevice, percentile, runFlood } from '../faults/support/flood-run.ts';

/** `+12` or `−28` (a minus sign, as the docs print it): over or under the warm level. */
const signed = (mib: number) => `${mib >= 0 ? '+' : '−'}${Math.abs(mib).toFixed(0)}`;

const ACK_P99_MS = 250;
const PEAK_MIB = 64;
const AFTER_MIB = 16;

const deviceFlood: Scenario = async ({ quick }) => {
  const mongo = await startMongoProcess(await freePort());
  try {
    const env = { MONGODB_URI: mongo.uri, LOG_LEVEL: 'warn', DEVICE_TOKEN: undefined, DEVICE_TOKENS: FLOOD_TOKENS };
    const backend = await spawnService('backend/main.ts', { env });
    await waitFor(async () => (await fetch(`${backend.url}/api/ready`)).status === 200, { what: 'backend ready' });
    const warm = await honestDevice(backend.url);
    await waitFor(() => warm.times.length >= 50, { timeout: 20_000, what: '50 honest acks' });
    await warm.stop();
    const floodMs = quick ? 5000 : 10_000;
    const alone = await honestDevice(backend.url);
    await sleep(floodMs); // a window of the same length as a flood's, measured, not waited on
    await alone.stop();
    const aloneP99 = `alone p99 ${percentile(alone.times, 0.99).toFixed(0)} ms (${alone.times.length})`;
    const baseline = rssMiB(backend.pid);
    const rows: BenchRow[] = [];
    for (const sockets of [10, 100]) {
      const { peak, after, times } = await runFlood(backend, {
        sockets,
        floodMs,
        afterMs: 10_000,
        afterBoundMiB: baseline + AFTER_MIB,
      });
      const load = loadavg()[0]!.toFixed(1);
      const p99 = percentile(times, 0.99);
      const [overPeak, overAfter] = [peak - baseline, after - baseline];
      const rss = `RSS ${signed(overPeak)} MiB peak, ${signed(overAfter)} MiB 10 s after`;
      rows.push({
        scenario: `${sockets} sockets of one token flooding; an honest device's acks meanwhile, and the backend's RSS`,
        baseline: `${rss}; ${aloneP99}; load ${load}`,
        ours: `honest ack p50 ${percentile(times, 0.5).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms (${times.length})`,
        ratio: `${p99.toFixed(0)} ms`,
        target: `p99 ≤ ${ACK_P99_MS} ms, RSS ≤ +${PEAK_MIB}/+${AFTER_MIB} MiB`,
        ok: p99 <= ACK_P99_MS && overPeak <= PEAK_MIB && overAfter <= AFTER_MIB,
      });
    }
    return rows;
  } finally {
    await stopAll();
    await mongo.stop();
  }
};

export default deviceFlood;
