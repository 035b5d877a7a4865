// GET/HEAD /metrics: the app's registry in the Prometheus text format, answered from memory.
import { Hono } from 'hono';
import type { Registry } from 'prom-client';
import { methodNotAllowed, OTHER_METHODS } from './health-routes.ts';

export const METRICS_PATH = '/metrics';

/** What a scraper may ask for: the text format, or OpenMetrics (Prometheus asks for both; the text format is kept). */
const SERVED_TYPES = new Set(['text/plain', 'text/*', '*/*', 'application/openmetrics-text']);

export function createMetricsRoutes({ registry }: { registry: Registry }): Hono {
  const routes = new Hono();
  routes.on(['GET', 'HEAD'], METRICS_PATH, async function scrape(c) {
    if (!acceptsTextFormat(c.req.header('accept'))) {
      const error = `${METRICS_PATH} answers only text/plain (the Prometheus text format): send Accept: text/plain`;
      return c.json({ error }, 406);
    }
    // Every collect() reads state held in memory: the scrape never waits on the database or a socket.
    const body = await registry.metrics();
    return new Response(body, { headers: { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' } });
  });
  routes.on(OTHER_METHODS, METRICS_PATH, methodNotAllowed);
  return routes;
}

/** Whether an Accept header admits the text format: no header, or a served type with a q above 0. */
export function acceptsTextFormat(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    return SERVED_TYPES.has(type) && (q === undefined || Number(q.slice(2)) > 0);
  });
}
