// The management port's app: GET /metrics and nothing else, for Prometheus on a port that is never published.
import { Hono } from 'hono';
import type { Registry } from 'prom-client';
import type { Server } from 'node:http';
import { createMetricsRoutes } from './metrics-routes.ts';
import { startServer } from './serve.ts';

/** Any other path is a one-line 404: the management port answers nothing but the scrape. */
export function createManagementApp(registry: Registry): Hono {
  const app = new Hono();
  app.route('/', createMetricsRoutes({ registry }));
  app.notFound((c) =>
    c.json({ error: 'the management port serves only GET /metrics' }, 404, { 'Cache-Control': 'no-store' }),
  );
  return app;
}

/** Listens with the management app on `port` (METRICS_PORT); no registry (METRICS=off) or no port: no server. */
export async function startManagementServer(
  registry: Registry | undefined,
  port: number | undefined,
  host: string | undefined,
): Promise<Server | undefined> {
  if (!registry || port === undefined) return undefined;
  return startServer({ fetch: createManagementApp(registry).fetch, port, host, portSetting: 'METRICS_PORT' });
}
