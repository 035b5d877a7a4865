// Builds the backend's Hono app: health and readiness, the device socket, and the stored readings and devices.
import { Hono } from 'hono';
import { createHealthRoutes } from '../lib/health-routes.ts';
import { answerErrorsInJson } from '../lib/json-errors.ts';
import { logRequests } from '../lib/request-log.ts';
import { DEVICE_SOCKET_PATH } from '../lib/device-protocol.ts';
import type { Readiness } from '../lib/readiness.ts';
import { serveMetrics } from '../lib/metrics.ts';
import type { Registry } from 'prom-client';
import type { Logger } from '../lib/logger.ts';
import type { DeviceRoutes } from './device-socket/device-hub.ts';
import type { ReadingStore } from './readings/reading-store.ts';
import { createReadingsRoutes, READINGS_PATHS } from './http/readings-routes.ts';
import { createReadGate, type SetTokens } from './http/read-gate.ts';

export interface BackendDeps {
  readiness: Readiness;
  environment: string;
  /** The release that answers, reported as liveness's `version` (lib/release-id.ts). */
  version: string;
  log: Logger;
  /** The database name shown in the liveness body (never the URI). */
  databaseName: string;
  devices?: DeviceRoutes;
  /** The readings in MongoDB: with `devices`, GET /api/readings and GET /api/devices answer from it. */
  store?: Pick<ReadingStore, 'readings' | 'devices'>;
  /** Serves GET /metrics from it and times every request; unset (METRICS=off): no /metrics. */
  metrics?: Registry;
  /**
   * READ_TOKENS: outside local mode GET /api/readings and /api/devices answer only a request bearing one of them;
   * none (or unset) there: every such request gets 401. Local mode leaves them open.
   */
  readTokens?: readonly string[];
  /** Given once, outside local mode: what replaces the read tokens (a SIGHUP reload of READ_TOKENS_FILE). */
  onReadTokenReload?: ((setTokens: SetTokens) => void) | undefined;
  /** Local mode: GET /metrics on this port too; elsewhere only on the management port (lib/management-app.ts). */
  metricsOnMainPort?: boolean;
}

export function createApp(deps: BackendDeps): Hono {
  const { readiness, environment, version, log, databaseName, devices, store, metrics, readTokens = [] } = deps;
  const { metricsOnMainPort = true } = deps;
  // The health routes' app is the service's app: every other route is added to it.
  const app = createHealthRoutes({
    readiness,
    environment,
    version,
    details: () => ({ database: { status: readiness.get('database') ?? 'disconnected', name: databaseName } }),
  });
  if (devices) {
    app.get(DEVICE_SOCKET_PATH, devices.gate, devices.upgrade);
    const gate = environment === 'local' ? undefined : createReadGate(readTokens, deps.onReadTokenReload);
    if (store) app.route('/', createReadingsRoutes({ store, log, ...(gate ? { gate } : {}) }));
  }
  answerErrorsInJson(app, log);
  // The device hub logs what matters about device sockets (connected, refused: once a minute per address, closed
  // and why); thousands of refused upgrades must not each cost an info line. The readings routes sum their 503s:
  // a client polling them while the database is away must not cost an error line per request.
  const logged = logRequests(app, log, { quietPaths: [DEVICE_SOCKET_PATH, ...READINGS_PATHS] });
  return serveMetrics(logged, metrics, { onThisPort: metricsOnMainPort });
}
