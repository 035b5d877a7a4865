// GET/HEAD /api/health (liveness) and /api/ready (readiness), shared by the backend and the device service.
import { Hono } from 'hono';
import type { Readiness, ReadinessSnapshot } from './readiness.ts';

export interface HealthRoutesOptions {
  readiness: Readiness;
  /** NODE_ENV, already defaulted to `production`. */
  environment: string;
  /**
   * Extra liveness fields (the backend's `database`, the device's backlog): plain JSON values, cheap to build. They
   * are serialized again only when they differ from the last ones, not on every probe.
   */
  details?: () => Record<string, unknown>;
}

const HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
const ALLOW = 'GET, HEAD';
export const OTHER_METHODS = ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'CONNECT'];

export function createHealthRoutes({ readiness, environment, details }: HealthRoutesOptions): Hono {
  const routes = new Hono();

  const environmentJson = JSON.stringify(environment);
  // The parts of both bodies that change only with readiness, or with what the details show, serialized once per
  // change.
  let cachedFor: ReadinessSnapshot | undefined;
  let cachedDetails: unknown;
  let detailsJson = '';
  let checksJson = '';
  const refresh = () => {
    const snapshot = readiness.snapshot();
    if (snapshot !== cachedFor) {
      cachedFor = snapshot;
      checksJson = JSON.stringify(snapshot.checks);
    }
    const shown = details?.();
    if (!sameJson(shown, cachedDetails)) {
      cachedDetails = shown;
      detailsJson = shown ? JSON.stringify(shown).slice(1, -1) : '';
    }
    return snapshot;
  };

  routes.on(['GET', 'HEAD'], '/api/health', function liveness() {
    refresh();
    const body =
      `{"status":"ok","timestamp":"${new Date().toISOString()}","uptime":${process.uptime()},` +
      `"environment":${environmentJson}${detailsJson ? `,${detailsJson}` : ''}}`;
    return new Response(body, { status: 200, headers: HEADERS });
  });

  routes.on(['GET', 'HEAD'], '/api/ready', function readinessProbe() {
    const { status } = refresh();
    const body = `{"status":"${status}","timestamp":"${new Date().toISOString()}","checks":${checksJson}}`;
    return new Response(body, { status: status === 'ready' ? 200 : 503, headers: HEADERS });
  });

  // Only the other methods: a catch-all route would also match GET, and two matched handlers take Hono off
  // its single-handler fast path (about 10% of probe throughput).
  routes.on(OTHER_METHODS, ['/api/health', '/api/ready'], methodNotAllowed);
  return routes;
}

export function methodNotAllowed(c: { req: { method: string; path: string } }) {
  const body = { error: `method ${c.req.method} is not allowed on ${c.req.path}; use GET or HEAD` };
  return new Response(JSON.stringify(body), { status: 405, headers: { ...HEADERS, Allow: ALLOW } });
}

/** Whether two plain JSON values (objects, arrays, primitives) have the same contents. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}
