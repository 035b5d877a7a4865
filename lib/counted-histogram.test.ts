import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Histogram, Registry } from 'prom-client';
import { CountedHistogram } from './counted-histogram.ts';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const configuration = (registry: Registry) => ({
  name: 'duration_seconds',
  help: 'Durations.',
  labelNames: ['route', 'status'] as const,
  buckets: BUCKETS,
  registers: [registry],
});

/** The same observations into prom-client's Histogram and into ours; bounds, past the last bound, and zero. */
function both() {
  const theirs = new Registry();
  const ours = new Registry();
  const reference = new Histogram({ ...configuration(theirs), labelNames: ['route', 'status'] });
  const counted = new CountedHistogram(configuration(ours));
  const observations: Array<[{ route: string; status: string }, number]> = [
    [{ route: '/a', status: '200' }, 0],
    [{ route: '/a', status: '200' }, 0.001],
    [{ route: '/a', status: '200' }, 0.0011],
    [{ route: '/a', status: '500' }, 0.5],
    [{ route: '/b "quoted"\\', status: '200' }, 7],
    [{ route: '/a', status: '200' }, 1],
  ];
  for (const [labels, value] of observations) {
    reference.observe(labels, value);
    counted.series(labels)(value);
  }
  return { theirs, ours, reference, counted };
}

test("the scrape text and get() are prom-client's own for the same observations", async () => {
  const { theirs, ours, reference, counted } = both();
  const text = await ours.metrics();
  assert.is(text, await theirs.metrics());
  assert.ok(text.includes('duration_seconds_bucket{le="0.001",route="/a",status="200"} 2'), text);
  assert.ok(text.includes('duration_seconds_bucket{le="+Inf",route="/b \\"quoted\\"\\\\",status="200"} 1'), text);
  // As JSON: prom-client's values carry `exemplar: undefined`, which JSON leaves out.
  const json = async (histogram: Histogram) => JSON.parse(JSON.stringify(await histogram.get()));
  assert.equal(await json(counted), await json(reference));
});

test('one series per combination of labels, however often asked for', async () => {
  const registry = new Registry();
  const counted = new CountedHistogram(configuration(registry));
  counted.series({ route: '/a', status: '200' })(0.002);
  counted.series({ status: '200', route: '/a' })(0.003);
  const text = await registry.metrics();
  assert.ok(text.includes('duration_seconds_count{route="/a",status="200"} 2'), text);
  assert.is(text.match(/duration_seconds_count/g)?.length, 1);
});

test('observations through the inherited observe() are shown beside the counted ones', async () => {
  const registry = new Registry();
  const counted = new CountedHistogram(configuration(registry));
  counted.series({ route: '/a', status: '200' })(0.002);
  counted.observe({ route: '/b', status: '404' }, 0.2);
  const text = await registry.metrics();
  assert.ok(text.includes('duration_seconds_count{route="/a",status="200"} 1'), text);
  assert.ok(text.includes('duration_seconds_count{route="/b",status="404"} 1'), text);
});

test('reset() zeroes the series, and a recorder handed out before counts on', async () => {
  const registry = new Registry();
  const counted = new CountedHistogram(configuration(registry));
  const observe = counted.series({ route: '/a', status: '200' });
  observe(0.5);
  registry.resetMetrics();
  assert.ok((await registry.metrics()).includes('duration_seconds_count{route="/a",status="200"} 0'));
  observe(0.5);
  const text = await registry.metrics();
  assert.ok(text.includes('duration_seconds_count{route="/a",status="200"} 1'), text);
  assert.ok(text.includes('duration_seconds_sum{route="/a",status="200"} 0.5'), text);
});

test('a value that is not a finite number is refused, as by prom-client', () => {
  const counted = new CountedHistogram(configuration(new Registry()));
  const observe = counted.series({ route: '/a', status: '200' });
  for (const value of [NaN, Infinity])
    assert.throws(() => observe(value), /duration_seconds: .* is not a finite number/);
});

test.run();
