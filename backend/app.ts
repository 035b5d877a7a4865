// Builds the backend's Hono app: health and readiness, the device socket, and the devices list.
import { Hono } from 'hono';
import { createHealthRoutes } from '../lib/health-routes.ts';
import { logRequests } from '../lib/request-log.ts';
import { DEVICE_SOCKET_PATH } from '../lib/device-protocol.ts';
import type { Readiness } from '../lib/readiness.ts';
import type { Logger } from '../lib/logger.ts';
import type { DeviceHub } from './device-hub.ts';

export interface BackendDeps {
  readiness: Readiness;
  environment: string;
  log: Logger;
  /** The database name shown in the liveness body (never the URI). */
  databaseName: string;
  devices?: DeviceHub;
}

export function createApp({ readiness, environment, log, databaseName, devices }: BackendDeps): Hono {
  const app = new Hono();
  app.route(
    '/',
    createHealthRoutes({
      readiness,
      environment,
      details: () => ({ database: { status: readiness.get('database') ?? 'disconnected', name: databaseName } }),
    }),
  );
  if (devices) {
    app.get(DEVICE_SOCKET_PATH, devices.handler);
    app.get('/api/devices', (c) => c.json({ devices: devices.devices() }, 200, { 'Cache-Control': 'no-store' }));
  }
  app.notFound((c) => c.json({ error: `no route for ${c.req.method} ${c.req.path}` }, 404));
  app.onError((error, c) => {
    log.error({ err: error, req: { method: c.req.method, url: c.req.path } }, 'request failed');
    return c.json({ error: 'internal error' }, 500);
  });
  // The device hub logs what matters about device sockets (connected, refused: once a minute per address, closed
  // and why); thousands of refused upgrades must not each cost an info line.
  return logRequests(app, log, { quietPaths: [DEVICE_SOCKET_PATH] });
}
