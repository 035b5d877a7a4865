// Times every HTTP request into a histogram by method, matched route pattern and status; /metrics itself is left out.
import type { Hono } from 'hono';
import type { Registry } from 'prom-client';
import { CountedHistogram, type Observe } from './counted-histogram.ts';
import { METRICS_PATH } from './metrics-routes.ts';
import { afterFetch } from './after-fetch.ts';

/** The route label of a request no route matched: never the raw path, which a client chooses freely. */
export const UNMATCHED_ROUTE = '(unmatched)';
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
// Probes answer in well under a millisecond; the default buckets start at 5 ms.
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
// Observers for static routes only (path = pattern): bounded by routes × methods × statuses.
const CACHED_MAX = 512;

/**
 * Wraps `app.fetch` (lib/after-fetch.ts says why not a middleware). The route pattern comes from the app's own
 * router, matched once more.
 */
export function measureRequests<T extends Hono<any, any, any>>(app: T, registry: Registry): T {
  const histogram = new CountedHistogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, matched route pattern and status (/metrics not counted).',
    labelNames: ['method', 'route', 'status'],
    buckets: BUCKETS,
    registers: [registry],
  });
  // method → status → path → recorder: three lookups with the strings the request already has, where one key
  // string built per request cost an allocation and a hash of a fresh string.
  const observers = new Map<string, Map<number, Map<string, Observe>>>();
  let cached = 0;
  let servesMetrics: boolean | undefined;
  return afterFetch(app, measured);

  function measured(method: string, path: string, status: number, ms: number): void {
    // A scrape is not counted; a /metrics the app does not serve (the public port outside local mode) is a 404
    // like any other path, counted as (unmatched).
    servesMetrics ??= routeOf(app, 'GET', METRICS_PATH) === METRICS_PATH;
    if (path === METRICS_PATH && servesMetrics) return;
    const byPath = observers.get(method)?.get(status);
    let observe = byPath?.get(path);
    if (!observe) {
      const route = routeOf(app, method, path);
      observe = histogram.series({ method: METHODS.has(method) ? method : 'other', route, status: String(status) });
      if (route === path && cached < CACHED_MAX) {
        cached += 1;
        pathsOf(observers, method, status).set(path, observe);
      }
    }
    observe(ms / 1000);
  }
}

/** The recorders of one method and status, made on first use. */
function pathsOf(observers: Map<string, Map<number, Map<string, Observe>>>, method: string, status: number) {
  let byStatus = observers.get(method);
  if (!byStatus) observers.set(method, (byStatus = new Map()));
  let byPath = byStatus.get(status);
  if (!byPath) byStatus.set(status, (byPath = new Map()));
  return byPath;
}

/** The pattern of the route that answered (`/api/readings`, `/api/device/:id`), or UNMATCHED_ROUTE. */
function routeOf(app: Hono<any, any, any>, method: string, path: string): string {
  const [handlers] = app.router.match(method === 'HEAD' ? 'GET' : method, path);
  const last = handlers[handlers.length - 1] as [[unknown, { path: string }], unknown] | undefined;
  return last ? last[0][1].path : UNMATCHED_ROUTE;
}
