// Builds the device service's Hono app: liveness (with the readings backlog) and readiness (serial + backend); never
// listens or reads env.
import { Hono } from 'hono';
import { createHealthRoutes } from '../lib/health-routes.ts';
import { answerErrorsInJson } from '../lib/json-errors.ts';
import { logRequests } from '../lib/request-log.ts';
import type { Readiness } from '../lib/readiness.ts';
import { serveMetrics } from '../lib/metrics.ts';
import type { Registry } from 'prom-client';
import type { Logger } from '../lib/logger.ts';
import type { ReadingStats } from './spool/reading-spool.ts';

interface DeviceDeps {
  /**
   * Holds `serial` (connected | emulator | disconnected), `backend` (connected | disconnected | unauthorized),
   * `spool` (writable | unwritable) and `acks` (ok | stalled).
   */
  readiness: Readiness;
  environment: string;
  /** The release that answers, reported as liveness's `version` (lib/release-id.ts). */
  version: string;
  log: Logger;
  /** The spool's backlog, reported in the liveness body as `readings` (the status page shows it). */
  readings: { stats(): ReadingStats };
  /** Serves GET /metrics from it and times every request; unset (METRICS=off): no /metrics. */
  metrics?: Registry;
  /** Local mode: GET /metrics on this port too; elsewhere only on the management port (lib/management-app.ts). */
  metricsOnMainPort?: boolean;
}

export function createApp(deps: DeviceDeps): Hono {
  const { readiness, environment, version, log, readings, metrics, metricsOnMainPort = true } = deps;
  // The health routes' app is the service's app: every other route is added to it.
  const app = createHealthRoutes({
    readiness,
    environment,
    version,
    details: () => ({ readings: readings.stats() }),
  });
  answerErrorsInJson(app, log);
  return serveMetrics(logRequests(app, log), metrics, { onThisPort: metricsOnMainPort });
}

/**
 * Declares the device service's four readiness checks; returns their setters. `backend` is `unauthorized` while the
 * backend refuses the token; `spool` is `unwritable` while a reading cannot be kept on disk; `acks` is `stalled`
 * while the backend, connected, acknowledges nothing of what the device holds (ack-stall.ts).
 */
export function defineDeviceChecks(readiness: Readiness) {
  return {
    setSerial: readiness.define('serial', { initial: 'disconnected', ready: ['connected', 'emulator'] }),
    setBackend: readiness.define('backend', { initial: 'disconnected', ready: ['connected'] }),
    setSpool: readiness.define('spool', { initial: 'writable', ready: ['writable'] }),
    setAcks: readiness.define('acks', { initial: 'ok', ready: ['ok'] }),
  };
}
