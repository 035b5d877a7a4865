// The backend's own metrics: readings stored, refused and declared lost, database write latency and state changes,
// device sockets.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Readiness } from '../../lib/readiness.ts';
import { REFUSAL_REASONS } from '../readings/reading-document.ts';
import { LOSS_REASONS } from '../../lib/device-protocol.ts';
import type { Counted } from './device-thread-messages.ts';

export interface BackendMetrics {
  /** What the device thread counted: a write timed (metered-store.ts), readings refused or declared lost. */
  counted(counted: Counted): void;
}

export interface BackendMetricsOptions {
  registry: Registry;
  readiness: Readiness;
  /** Device sockets open now (the hub's count). */
  socketsOpen: () => number;
}

export function createBackendMetrics({ registry, readiness, socketsOpen }: BackendMetricsOptions): BackendMetrics {
  const registers = [registry];
  const stored = new Counter({
    name: 'backend_readings_stored_total',
    help: 'Readings inserted into MongoDB (a resent reading already stored is not counted again).',
    registers,
  });
  const refused = new Counter({
    name: 'backend_readings_refused_total',
    help:
      'Readings not stored: refused as given (value_too_large, timestamp_invalid, timestamp_ahead) ' +
      'or dropped over the bound.',
    labelNames: ['reason'],
    registers,
  });
  // Zero from the start, so rate() and increase() see the first refusal.
  for (const reason of REFUSAL_REASONS) refused.inc({ reason }, 0);
  const lost = new Counter({
    name: 'backend_readings_declared_lost_total',
    help:
      'Readings a device declared it will never send and the backend never stored: evicted from its full spool, or ' +
      'unwritten (its spool write failed). Each reading counts once, however often declared.',
    labelNames: ['reason'],
    registers,
  });
  for (const reason of LOSS_REASONS) lost.inc({ reason }, 0);
  const writes = new Histogram({
    name: 'backend_database_write_duration_seconds',
    help: 'Time each insert of a batch of readings took, by outcome (ok or error).',
    labelNames: ['outcome'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  new Gauge({
    name: 'backend_device_sockets_open',
    help: 'Device sockets open now, including those not yet past hello.',
    registers,
    collect() {
      this.set(socketsOpen());
    },
  });
  const changes = new Counter({
    name: 'backend_database_state_changes_total',
    help: 'Changes of the database readiness check, by the state it changed to.',
    labelNames: ['state'],
    registers,
  });
  readiness.onChange(({ name, state }) => {
    if (name === 'database') changes.inc({ state });
  });

  return {
    counted(counted) {
      if (counted.kind === 'refused') return refused.inc({ reason: counted.reason }, counted.count);
      if (counted.kind === 'lost') return lost.inc({ reason: counted.reason }, counted.count);
      writes.observe({ outcome: counted.outcome }, counted.seconds);
      stored.inc(counted.inserted);
    },
  };
}
