// The management port's app: GET /metrics and nothing else, for Prometheus on a port that is never published.
import { Hono } from 'hono';
import type { Registry } from 'prom-client';
import { createMetricsRoutes } from './metrics-routes.ts';

/** Any other path is a one-line 404: the management port answers nothing but the scrape. */
export function createManagementApp(registry: Registry): Hono {
  const app = new Hono();
  app.route('/', createMetricsRoutes({ registry }));
  app.notFound((c) => c.json({ error: 'the management port serves only GET /metrics' }, 404));
  return app;
}
