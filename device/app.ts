// Builds the device service's Hono app: liveness (with the readings backlog) and readiness (serial + backend); never
// listens or reads env.
import { Hono } from 'hono';
import { createHealthRoutes } from '../lib/health-routes.ts';
import { answerErrorsInJson } from '../lib/json-errors.ts';
import { logRequests } from '../lib/request-log.ts';
import type { Readiness } from '../lib/readiness.ts';
import type { Logger } from '../lib/logger.ts';
import type { ReadingStats } from './reading-spool.ts';

export interface DeviceDeps {
  /** Holds `serial` (connected | emulator | disconnected) and `backend` (connected | disconnected | unauthorized). */
  readiness: Readiness;
  environment: string;
  log: Logger;
  /** The spool's backlog, reported in the liveness body as `readings` (the status page shows it). */
  readings: { stats(): ReadingStats; readonly version: number };
}

export function createApp({ readiness, environment, log, readings }: DeviceDeps): Hono {
  const app = new Hono();
  app.route(
    '/',
    createHealthRoutes({
      readiness,
      environment,
      details: () => ({ readings: readings.stats() }),
      detailsVersion: () => readings.version,
    }),
  );
  answerErrorsInJson(app, log);
  return logRequests(app, log);
}

/**
 * Declares the device service's two readiness checks; returns their setters. `backend` is `unauthorized` while the
 * backend refuses the token.
 */
export function defineDeviceChecks(readiness: Readiness) {
  return {
    setSerial: readiness.define('serial', { initial: 'disconnected', ready: ['connected', 'emulator'] }),
    setBackend: readiness.define('backend', { initial: 'disconnected', ready: ['connected'] }),
  };
}
