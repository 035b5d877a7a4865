// What a benchmark scenario returns: rows of one table, each a baseline and ours measured in the same run.

export interface BenchRow {
  scenario: string;
  /** What we compare against, with its figure, e.g. "node:http 21,300 req/s". */
  baseline: string;
  /** Our figure, e.g. "19,800 req/s". */
  ours: string;
  /** ours ÷ baseline (or the absolute figure when there is no baseline), already formatted. */
  ratio: string;
  target: string;
  /** true/false when the row has a target it met or missed; null when it only reports. */
  ok: boolean | null;
}

export interface ScenarioOptions {
  /** `npm run bench -- --quick`: the whole run in under 2 minutes. */
  quick: boolean;
}

export type Scenario = (options: ScenarioOptions) => Promise<BenchRow[]>;

/** Median of a list of numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Runs `ours` and `baseline` in turns for `rounds` rounds, alternating who goes first so drift on a shared machine
 * hits both alike; each one's results in round order, so `ours[i]` and `baseline[i]` ran back to back.
 */
export async function interleaved<T>(
  rounds: number,
  ours: () => Promise<T>,
  baseline: () => Promise<T>,
): Promise<{ ours: T[]; baseline: T[] }> {
  const results = { ours: [] as T[], baseline: [] as T[] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? (['baseline', 'ours'] as const) : (['ours', 'baseline'] as const);
    for (const who of order) results[who].push(await (who === 'ours' ? ours() : baseline()));
  }
  return results;
}

/** interleaved() for runs that each return one figure (the ms a run took): the median of each. */
export async function interleavedMedians(
  rounds: number,
  ours: () => Promise<number>,
  baseline: () => Promise<number>,
): Promise<{ ours: number; baseline: number }> {
  const times = await interleaved(rounds, ours, baseline);
  return { ours: median(times.ours), baseline: median(times.baseline) };
}
