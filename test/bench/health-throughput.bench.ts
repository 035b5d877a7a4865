// /api/health and /api/ready throughput: the real backend vs a bare node:http server with the same JSON, measured
// by autocannon and by wrk (a C client that is not itself the bottleneck), one row each.
import type { Scenario, BenchRow } from './scenario.ts';
import { load } from './load.ts';
import { wrk } from './wrk.ts';
import { compareThroughput, cpuRow, throughputRow } from './throughput-rows.ts';
import { spawnService } from '../support/spawn-service.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { stopAll } from '../support/spawn-process.ts';
import { waitFor } from '../support/deadline.ts';
import { assertSameBodies } from './same-bodies.ts';

const healthThroughput: Scenario = async ({ quick }) => {
  const rounds = quick ? 2 : 5;
  const seconds = quick ? 2 : 5;
  try {
    const mongo = await startMongoProcess();
    // METRICS on (the default, said here): the probes keep their speed with every request timed into /metrics.
    const ours = await spawnService('backend/main.ts', {
      env: { MONGODB_URI: mongo.uri, LOG_LEVEL: 'info', METRICS: 'on' },
    });
    await waitFor(async () => (await fetch(`${ours.url}/api/ready`)).status === 200, {
      timeout: 10_000,
      what: 'backend ready',
    });
    const bare = await spawnService('test/bench/fixtures/bare-health-server.ts', {});
    await assertSameBodies(ours.url, bare.url, ['/api/health', '/api/ready']);
    const rows: BenchRow[] = [];
    const clients = [
      ['autocannon', load],
      ['wrk', wrk],
    ] as const;
    for (const path of ['/api/health', '/api/ready']) {
      for (const [client, run] of clients) {
        const results = await compareThroughput(
          run,
          { url: ours.url + path, pid: ours.pid },
          { url: bare.url + path, pid: bare.pid },
          { rounds, seconds },
        );
        const terms = { baseline: 'node:http', goal: 0.9 };
        rows.push(throughputRow(`${path} req/s, p99 (${client}, 50 conns, ${rounds}×${seconds}s)`, results, terms));
        if (client === 'wrk')
          rows.push(cpuRow(`${path} server CPU per 1,000 requests (wrk, as above)`, results, terms));
      }
    }
    return rows;
  } finally {
    await stopAll();
  }
};

export default healthThroughput;
