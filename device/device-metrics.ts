// The device service's own metrics: its backlog (unacknowledged readings, spool bytes), readings read and lost,
// the time from a reading's read to its ack, and reconnects of the backend socket.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { AckMessage, Reading } from '../lib/device-protocol.ts';
import type { ReadingStats } from './spool/reading-spool.ts';

/** This session's readings awaiting their ack, kept for the read-to-ack time; past it the oldest go unmeasured. */
const PENDING_MAX = 100_000;

export interface DeviceMetrics {
  /** A line was read and spooled as `reading` of `session`. */
  read(session: string, reading: Reading): void;
  /** A line longer than the backend accepts was dropped before the spool. */
  lineTooLong(): void;
  /** The backend acknowledged readings up to `ack.seq` of `ack.session`: `forgotten` of them left the spool. */
  acked(ack: AckMessage, forgotten?: number): void;
  /** The backend socket's state changed (the link's onState). */
  backendState(state: string): void;
}

export interface DeviceMetricsOptions {
  registry: Registry;
  /** The spool's counts, read when scraped. */
  stats: () => ReadingStats;
  now?: () => number;
}

export function createDeviceMetrics({ registry, stats, now = Date.now }: DeviceMetricsOptions): DeviceMetrics {
  const registers = [registry];
  new Gauge({
    name: 'device_readings_unacknowledged',
    help: 'Readings in the spool the backend has not acknowledged (the backlog).',
    registers,
    collect() {
      this.set(stats().unacknowledged);
    },
  });
  new Gauge({
    name: 'device_spool_bytes',
    help: 'Bytes of the spool files on disk.',
    registers,
    collect() {
      this.set(stats().spoolBytes);
    },
  });
  const read = new Counter({ name: 'device_readings_read_total', help: 'Lines read and spooled.', registers });
  // The spool counts its losses itself; at each scrape only the increase since the last is added.
  const seen = { evicted: 0, unwritten: 0, refused: 0 };
  const lost = new Counter({
    name: 'device_readings_lost_total',
    help:
      'Readings read that will never be stored, by reason: evicted (dropped unacknowledged from the full spool), ' +
      'unwritten (the spool write failed), refused (the backend cannot store it as given), line_too_long (dropped ' +
      'before the spool).',
    labelNames: ['reason'],
    registers,
    collect() {
      const { dropped: evicted, unwritten, refused } = stats();
      for (const [reason, total] of Object.entries({ evicted, unwritten, refused })) {
        const before = seen[reason as keyof typeof seen];
        if (total > before) this.inc({ reason }, total - before);
        seen[reason as keyof typeof seen] = Math.max(before, total);
      }
    },
  });
  for (const reason of ['evicted', 'unwritten', 'refused', 'line_too_long']) lost.inc({ reason }, 0);
  const ackTime = new Histogram({
    name: 'device_reading_ack_seconds',
    help: "Time from a reading's read to the backend's ack of it (this session's readings).",
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers,
  });
  const acknowledged = new Counter({
    name: 'device_readings_acknowledged_total',
    help: 'Readings the backend acknowledged (stored, or refused as given), so the spool forgot them.',
    registers,
  });
  const reconnects = new Counter({
    name: 'device_backend_reconnects_total',
    help: 'Times the backend socket connected again after its first connection.',
    registers,
  });

  // This session's readings in seq order, with when each was read: acks are cumulative, so they leave from the front.
  let session: string | undefined;
  let pending: Array<{ seq: number; at: number }> = [];
  let head = 0;
  let connections = 0;

  return {
    read(readSession, reading) {
      read.inc();
      if (readSession !== session) {
        session = readSession;
        pending = [];
        head = 0;
      }
      pending.push({ seq: reading.seq, at: now() });
      if (pending.length - head > PENDING_MAX) head += 1;
    },
    lineTooLong: () => lost.inc({ reason: 'line_too_long' }),
    acked(ack, forgotten = 0) {
      acknowledged.inc(forgotten);
      if (ack.session !== session) return;
      const t = now();
      while (head < pending.length && pending[head]!.seq <= ack.seq) {
        ackTime.observe((t - pending[head]!.at) / 1000);
        head += 1;
      }
      // Compact now and then, so the array does not keep what was acknowledged.
      if (head > 1024 && head * 2 > pending.length) {
        pending = pending.slice(head);
        head = 0;
      }
    },
    backendState(state) {
      if (state !== 'connected') return;
      connections += 1;
      if (connections > 1) reconnects.inc();
    },
  };
}
