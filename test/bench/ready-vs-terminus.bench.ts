// /api/ready req/s: ours (state pushed by driver events) vs Express + terminus pinging the database per request.
import type { Scenario } from './scenario.ts';
import { interleaved, median } from './scenario.ts';
import { load, fmt } from './load.ts';
import { spawnService } from '../support/spawn-service.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { stopAll } from '../support/spawn-process.ts';
import { waitFor } from '../support/deadline.ts';

const readyVsTerminus: Scenario = async ({ quick }) => {
  const rounds = quick ? 2 : 5;
  const seconds = quick ? 2 : 5;
  try {
    // One stand-in for both, so both readiness checks talk to the same database process.
    const mongo = await startMongoProcess();
    const ours = await spawnService('backend/main.ts', { env: { MONGODB_URI: mongo.uri } });
    const terminus = await spawnService('test/bench/fixtures/terminus-ready-server.ts', {
      env: { MONGODB_URI: mongo.uri },
    });
    const urls = { ours: `${ours.url}/api/ready`, terminus: `${terminus.url}/api/ready` };
    for (const url of Object.values(urls)) {
      await waitFor(async () => (await fetch(url)).status === 200, { timeout: 10_000, what: `${url} ready` });
      await load(url, { seconds: 1 }); // warm-up
    }
    const measured = await interleaved(
      rounds,
      () => load(urls.ours, { seconds }),
      () => load(urls.terminus, { seconds }),
    );
    const results = { ours: measured.ours, terminus: measured.baseline };
    const rps = { ours: median(results.ours.map((r) => r.rps)), terminus: median(results.terminus.map((r) => r.rps)) };
    const p99 = { ours: median(results.ours.map((r) => r.p99)), terminus: median(results.terminus.map((r) => r.p99)) };
    const failures = (who: 'ours' | 'terminus') => results[who].reduce((n, r) => n + r.errors + r.non2xx, 0);
    const note = (who: 'ours' | 'terminus') => (failures(who) ? `, ${failures(who)} errors/non-2xx` : '');
    const ratio = rps.ours / rps.terminus;
    return [
      {
        scenario: `/api/ready req/s vs a database ping per request (autocannon, 50 conns, ${rounds}×${seconds}s)`,
        baseline: `Express + terminus ${fmt(rps.terminus)} req/s, p99 ${p99.terminus} ms${note('terminus')}`,
        ours: `${fmt(rps.ours)} req/s, p99 ${p99.ours} ms${note('ours')}`,
        ratio: `${ratio.toFixed(2)}×`,
        target: '≥ 2×',
        ok: ratio >= 2 && failures('ours') === 0,
      },
    ];
  } finally {
    await stopAll();
  }
};

export default readyVsTerminus;
