// /api/health and /api/ready throughput: the real backend vs a bare node:http server with the same JSON, measured
// by autocannon and by wrk (a C client that is not itself the bottleneck), one row each.
import type { Scenario, BenchRow } from './scenario.ts';
import { interleaved, median } from './scenario.ts';
import { load, fmt, type LoadResult } from './load.ts';
import { wrk } from './wrk.ts';
import { withServerCpu } from './process-cpu.ts';
import { spawnService } from '../support/spawn-service.ts';
import { startMongoProcess } from '../support/mongo-process.ts';
import { freePort } from '../../tools/free-port.ts';
import { stopAll } from '../support/spawn-process.ts';
import { waitFor } from '../support/deadline.ts';
import { assertSameBodies } from './same-bodies.ts';

type Measured = LoadResult & { cpuPerKilo: number };

const healthThroughput: Scenario = async ({ quick }) => {
  const rounds = quick ? 2 : 5;
  const seconds = quick ? 2 : 5;
  try {
    const mongo = await startMongoProcess(await freePort());
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
        // Warm-up, both, long enough that the client's own code is compiled before the first measured round.
        await run(ours.url + path, { seconds: 3 });
        await run(bare.url + path, { seconds: 3 });
        const results = await interleaved(
          rounds,
          () => withServerCpu(ours.pid, () => run(ours.url + path, { seconds })),
          () => withServerCpu(bare.pid, () => run(bare.url + path, { seconds })),
        );
        rows.push(throughputRow(`${path} req/s, p99 (${client}, 50 conns, ${rounds}×${seconds}s)`, results));
        if (client === 'wrk') rows.push(cpuRow(`${path} server CPU per 1,000 requests (wrk, as above)`, results));
      }
    }
    return rows;
  } finally {
    await stopAll();
  }
};

/** One row from the interleaved rounds of one client. */
function throughputRow(scenario: string, results: { ours: LoadResult[]; baseline: LoadResult[] }): BenchRow {
  const rps = { ours: median(results.ours.map((r) => r.rps)), bare: median(results.baseline.map((r) => r.rps)) };
  const p99Of = (runs: LoadResult[]) => Math.round(median(runs.map((r) => r.p99)) * 10) / 10;
  const p99 = { ours: p99Of(results.ours), bare: p99Of(results.baseline) };
  const failures = results.ours.reduce((n, r) => n + r.errors + r.non2xx, 0);
  // The ratio of each round's pair, run back to back, then their median: a machine that speeds up or slows
  // down between rounds moves both of a pair alike, where it would move one median and not the other.
  const ratio = median(results.ours.map((r, round) => r.rps / results.baseline[round]!.rps));
  return {
    scenario,
    baseline: `node:http ${fmt(rps.bare)} req/s, p99 ${p99.bare} ms`,
    ours: `${fmt(rps.ours)} req/s, p99 ${p99.ours} ms${failures ? `, ${failures} errors/non-2xx` : ''}`,
    ratio: `${ratio.toFixed(2)}×`,
    target: '≥ 0.90×',
    ok: ratio >= 0.9 && failures === 0,
  };
}

/**
 * The server's CPU time per request, ours against node:http's, from the same rounds: unlike requests per second it
 * does not move with what else the machine runs, so it says what Hono and the kit's wrappers cost per request.
 * The ratio is node:http's CPU per request ÷ ours (so ≥ 0.90× reads as for throughput), per round, then the median.
 */
function cpuRow(scenario: string, results: { ours: Measured[]; baseline: Measured[] }): BenchRow {
  const cpu = (runs: Measured[]) => median(runs.map((r) => r.cpuPerKilo)).toFixed(1);
  const ratio = median(results.ours.map((r, round) => results.baseline[round]!.cpuPerKilo / r.cpuPerKilo));
  return {
    scenario,
    baseline: `node:http ${cpu(results.baseline)} ms`,
    ours: `${cpu(results.ours)} ms`,
    ratio: `${ratio.toFixed(2)}×`,
    target: '≥ 0.90×',
    ok: ratio >= 0.9,
  };
}

export default healthThroughput;
