// The throughput comparison the HTTP benches share: one load client against ours and a baseline, warmed up, then
// interleaved rounds that also read each server's CPU; a requests-per-second row and a CPU-per-request row.
import type { BenchRow } from './scenario.ts';
import { interleaved, median } from './scenario.ts';
import { fmt, type LoadResult } from './load.ts';
import { withServerCpu } from './process-cpu.ts';

export type Measured = LoadResult & { cpuPerKilo: number };
export interface Comparison {
  ours: Measured[];
  baseline: Measured[];
}

/** autocannon (load.ts) or wrk (wrk.ts); `ca` is the CA an https:// URL is verified with, where the client does. */
export type LoadClient = (url: string, options: { seconds: number; ca?: string }) => Promise<LoadResult>;

/** A server under load: the URL to load and the process whose CPU is read. */
export interface LoadTarget {
  url: string;
  pid: number;
  ca?: string;
}

/**
 * What a row says of its baseline and the ratio it must reach, e.g. `{ baseline: 'node:http', goal: 0.9 }`; a goal of
 * null makes a row that only reports.
 */
export interface RowTerms {
  baseline: string;
  goal: number | null;
}

/** The row's target and verdict for a ratio (and whether its requests all succeeded). */
function judge(ratio: number, goal: number | null, clean = true): Pick<BenchRow, 'target' | 'ok'> {
  if (goal === null) return { target: 'report', ok: null };
  return { target: `≥ ${goal.toFixed(2)}×`, ok: ratio >= goal && clean };
}

/** Warm-up of both (long enough that the client's own code is compiled), then `rounds` interleaved rounds. */
export async function compareThroughput(
  run: LoadClient,
  ours: LoadTarget,
  baseline: LoadTarget,
  { rounds, seconds }: { rounds: number; seconds: number },
): Promise<Comparison> {
  await run(ours.url, { seconds: 3, ca: ours.ca });
  await run(baseline.url, { seconds: 3, ca: baseline.ca });
  const measure = (target: LoadTarget) => () =>
    withServerCpu(target.pid, () => run(target.url, { seconds, ca: target.ca }));
  return interleaved(rounds, measure(ours), measure(baseline));
}

/** Requests per second and p99 of each side; the ratio ours ÷ baseline. */
export function throughputRow(scenario: string, results: Comparison, { baseline, goal }: RowTerms): BenchRow {
  const rps = { ours: median(results.ours.map((r) => r.rps)), bare: median(results.baseline.map((r) => r.rps)) };
  const p99Of = (runs: LoadResult[]) => Math.round(median(runs.map((r) => r.p99)) * 10) / 10;
  const p99 = { ours: p99Of(results.ours), bare: p99Of(results.baseline) };
  const failures = results.ours.reduce((n, r) => n + r.errors + r.non2xx, 0);
  // The ratio of each round's pair, run back to back, then their median: a machine that speeds up or slows
  // down between rounds moves both of a pair alike, where it would move one median and not the other.
  const ratio = median(results.ours.map((r, round) => r.rps / results.baseline[round]!.rps));
  return {
    scenario,
    baseline: `${baseline} ${fmt(rps.bare)} req/s, p99 ${p99.bare} ms`,
    ours: `${fmt(rps.ours)} req/s, p99 ${p99.ours} ms${failures ? `, ${failures} errors/non-2xx` : ''}`,
    ratio: `${ratio.toFixed(2)}×`,
    ...judge(ratio, goal, failures === 0),
  };
}

/**
 * The server's CPU time per request, ours against the baseline's, from the same rounds: unlike requests per second
 * it does not move with what else the machine runs. The ratio is the baseline's CPU per request ÷ ours (so it
 * reads as the throughput ratio does), per round, then the median.
 */
export function cpuRow(scenario: string, results: Comparison, { baseline, goal }: RowTerms): BenchRow {
  const cpu = (runs: Measured[]) => median(runs.map((r) => r.cpuPerKilo)).toFixed(1);
  const ratio = median(results.ours.map((r, round) => results.baseline[round]!.cpuPerKilo / r.cpuPerKilo));
  return {
    scenario,
    baseline: `${baseline} ${cpu(results.baseline)} ms`,
    ours: `${cpu(results.ours)} ms`,
    ratio: `${ratio.toFixed(2)}×`,
    ...judge(ratio, goal),
  };
}
