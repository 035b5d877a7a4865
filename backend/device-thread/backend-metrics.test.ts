import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry } from 'prom-client';
import { createReadiness } from '../../lib/readiness.ts';
import { createBackendMetrics } from './backend-metrics.ts';
import { meteredStore } from './metered-store.ts';
import { DatabaseUnavailableError } from '../database/database-unavailable-error.ts';

function setup() {
  const registry = new Registry();
  const readiness = createReadiness();
  const setDatabase = readiness.define('database', { initial: 'disconnected', ready: ['connected'] });
  let open = 0;
  const metrics = createBackendMetrics({ registry, readiness, socketsOpen: () => open });
  const lines = async () => (await registry.metrics()).split('\n');
  return { metrics, setDatabase, lines, setOpen: (n: number) => (open = n) };
}

test('a metered insert counts the readings it stored (not the resent ones) and is timed by outcome', async () => {
  const { metrics, lines } = setup();
  let fail = false;
  const inner = {
    insert: async (docs: unknown[]) => {
      if (fail) throw new DatabaseUnavailableError('timeout', 'database hangs');
      return { inserted: docs.length - 1, duplicates: [0] };
    },
  };
  const store = meteredStore(inner, metrics.counted);
  const docs = Array.from({ length: 3 }, () => ({}) as never);
  assert.equal(await store.insert(docs), { inserted: 2, duplicates: [0] });
  fail = true;
  const failed = await store.insert(docs).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.instance(failed, DatabaseUnavailableError);
  const text = await lines();
  assert.ok(text.includes('backend_readings_stored_total 2'));
  assert.ok(text.includes('backend_database_write_duration_seconds_count{outcome="ok"} 1'));
  assert.ok(text.includes('backend_database_write_duration_seconds_count{outcome="error"} 1'));
});

test('refusals and losses by reason (every reason there from the start), sockets open, database states', async () => {
  const { metrics, setDatabase, lines, setOpen } = setup();
  assert.ok((await lines()).includes('backend_readings_refused_total{reason="over_bound"} 0'));
  metrics.counted({ kind: 'refused', reason: 'timestamp_invalid', count: 1 });
  metrics.counted({ kind: 'refused', reason: 'over_bound', count: 40 });
  metrics.counted({ kind: 'lost', reason: 'evicted', count: 7 });
  setOpen(3);
  setDatabase('connected');
  setDatabase('disconnected');
  setDatabase('connected');
  const text = await lines();
  assert.ok(text.includes('backend_readings_refused_total{reason="timestamp_invalid"} 1'));
  assert.ok(text.includes('backend_readings_refused_total{reason="over_bound"} 40'));
  assert.ok(text.includes('backend_readings_refused_total{reason="value_too_large"} 0'));
  assert.ok(text.includes('backend_readings_declared_lost_total{reason="evicted"} 7'));
  assert.ok(text.includes('backend_device_sockets_open 3'));
  assert.ok(text.includes('backend_database_state_changes_total{state="connected"} 2'));
  assert.ok(text.includes('backend_database_state_changes_total{state="disconnected"} 1'));
});

test.run();
