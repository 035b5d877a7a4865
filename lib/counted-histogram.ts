// A prom-client Histogram whose hot series are counted in plain arrays and read when scraped.
import { Histogram, type HistogramConfiguration, type LabelValues } from 'prom-client';

/** Records one observation into a series; what `CountedHistogram.series()` hands out. */
export type Observe = (value: number) => void;

interface PromValue {
  labels: LabelValues<string>;
  sharedLabels: LabelValues<string>;
  value: number;
  metricName: string;
  /** prom-client's buckets carry `exemplar: null` (no exemplars are kept here). */
  exemplar?: null;
}
type PromString = Awaited<ReturnType<Histogram['get']>> & { values: PromValue[] };

interface Counts {
  labels: LabelValues<string>;
  /** Observations per bucket (not cumulative), by upper bound's index; the last slot is +Inf. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * prom-client's `observe()` validates and hashes the labels on every call: about 3 µs a request, a tenth of what a
 * probe costs in all. Here a series is looked up once (`series()`), and each observation is a bucket search and two
 * additions. The scrape goes through prom-client as for any histogram: the Registry formats the standard values
 * (cumulative `_bucket` with `le`, `_sum`, `_count`), and `get()` gives them. Observations made with the inherited
 * `observe()` are kept and shown too.
 */
export class CountedHistogram<T extends string> extends Histogram<T> {
  readonly #bounds: readonly number[];
  readonly #series = new Map<string, Counts>();
  readonly #labelNames: readonly T[];
  readonly #name: string;

  constructor(configuration: HistogramConfiguration<T> & { buckets: number[]; labelNames: readonly T[] }) {
    super(configuration);
    this.#bounds = [...configuration.buckets].sort((a, b) => a - b);
    this.#labelNames = configuration.labelNames;
    this.#name = configuration.name;
  }

  /** The recorder for one combination of labels: the same series for the same labels, however often asked. */
  series(labels: Record<T, string>): Observe {
    const key = this.#labelNames.map((name) => labels[name]).join('\u0000');
    let counts = this.#series.get(key);
    if (!counts) {
      counts = { labels: { ...labels }, buckets: new Float64Array(this.#bounds.length + 1), sum: 0, count: 0 };
      this.#series.set(key, counts);
    }
    const bounds = this.#bounds;
    const series = counts;
    return (value) => {
      if (!Number.isFinite(value)) throw new TypeError(`${this.#name}: ${value} is not a finite number`);
      let bucket = 0;
      while (bucket < bounds.length && value > bounds[bucket]!) bucket++;
      series.buckets[bucket]! += 1;
      series.sum += value;
      series.count += 1;
    };
  }

  /**
   * Where prom-client's Registry and `get()` read a histogram's values from (a method its types do not declare):
   * the inherited series, then these, in prom-client's own shape (a value's `sharedLabels` are the series' labels).
   */
  async getForPromString(): Promise<PromString> {
    const inherited = await (
      Histogram.prototype as unknown as { getForPromString(): Promise<PromString> }
    ).getForPromString.call(this);
    const name = this.#name;
    const values: PromValue[] = [];
    for (const { labels, buckets, sum, count } of this.#series.values()) {
      let cumulative = 0;
      this.#bounds.forEach((le, index) => {
        cumulative += buckets[index]!;
        values.push({
          labels: { le },
          sharedLabels: labels,
          value: cumulative,
          metricName: `${name}_bucket`,
          exemplar: null,
        });
      });
      values.push({
        labels: { le: '+Inf' },
        sharedLabels: labels,
        value: count,
        metricName: `${name}_bucket`,
        exemplar: null,
      });
      values.push({ labels: {}, sharedLabels: labels, value: sum, metricName: `${name}_sum` });
      values.push({ labels: {}, sharedLabels: labels, value: count, metricName: `${name}_count` });
    }
    return { ...inherited, values: [...inherited.values, ...values] };
  }

  /** Zeroes every series; the recorders handed out stay valid. */
  override reset(): void {
    super.reset();
    // prom-client's constructor calls reset() before this class's fields exist.
    if (!(#series in this)) return;
    for (const series of this.#series.values()) {
      series.buckets.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}
