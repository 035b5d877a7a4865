import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry } from 'prom-client';
import { createDeviceMetrics } from './device-metrics.ts';
import { emptyReadingStats } from '../test/support/reading-stats.ts';

function setup() {
  const registry = new Registry();
  let t = 1000;
  const stats = emptyReadingStats();
  const metrics = createDeviceMetrics({ registry, stats: () => stats, now: () => t });
  const lines = async () => (await registry.metrics()).split('\n');
  return { metrics, stats, lines, advance: (ms: number) => (t += ms) };
}

const reading = (seq: number) => ({ seq, timestamp: '2026-03-01T12:00:00.000Z', value: `line ${seq}` });

test('the time from read to ack is observed once per reading of this session, acks being cumulative', async () => {
  const { metrics, lines, advance } = setup();
  metrics.read('s1', reading(1));
  advance(300);
  metrics.read('s1', reading(2));
  metrics.read('s1', reading(3));
  advance(200);
  metrics.acked({ type: 'ack', session: 's1', seq: 2 }, 2);
  metrics.acked({ type: 'ack', session: 'older', seq: 3 }, 3);
  let text = await lines();
  assert.ok(text.includes('device_reading_ack_seconds_count 2'));
  assert.ok(text.includes('device_reading_ack_seconds_sum 0.7'));
  assert.ok(text.includes('device_readings_read_total 3'));
  assert.ok(text.includes('device_readings_acknowledged_total 5'), 'every reading the spool forgot, any session');
  metrics.acked({ type: 'ack', session: 's1', seq: 3 });
  metrics.acked({ type: 'ack', session: 's1', seq: 3 });
  text = await lines();
  assert.ok(text.includes('device_reading_ack_seconds_count 3'));
});

test("the spool's backlog, losses by reason, a line too long, and reconnects after the first connection", async () => {
  const { metrics, stats, lines } = setup();
  Object.assign(stats, { unacknowledged: 12, spoolBytes: 4096, dropped: 3, unwritten: 2 });
  metrics.lineTooLong();
  for (const state of ['connected', 'disconnected', 'connected', 'unauthorized', 'connected'])
    metrics.backendState(state);
  let text = await lines();
  assert.ok(text.includes('device_readings_unacknowledged 12'));
  assert.ok(text.includes('device_spool_bytes 4096'));
  assert.ok(text.includes('device_readings_lost_total{reason="evicted"} 3'));
  assert.ok(text.includes('device_readings_lost_total{reason="unwritten"} 2'));
  assert.ok(text.includes('device_readings_lost_total{reason="refused"} 0'));
  assert.ok(text.includes('device_readings_lost_total{reason="line_too_long"} 1'));
  assert.ok(text.includes('device_backend_reconnects_total 2'));
  Object.assign(stats, { dropped: 5, refused: 4 });
  text = await lines();
  assert.ok(text.includes('device_readings_lost_total{reason="evicted"} 5'), 'only the increase is added');
  assert.ok(text.includes('device_readings_lost_total{reason="refused"} 4'));
  assert.ok(text.includes('device_readings_lost_total{reason="unwritten"} 2'));
});

test.run();
