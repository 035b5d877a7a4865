// GET/HEAD /api/health (liveness), /api/ready and /api/ready/<check> (readiness), shared by the backend and the
// device service.
import { Hono, type Context } from 'hono';
import type { Readiness, ReadinessSnapshot } from './readiness.ts';
import { readinessAnswers, type ReadinessAnswer, type ReadinessAnswers } from './readiness-answers.ts';
import { HEALTH_JSON, readinessForm } from './readiness-request.ts';
import { isoNow } from './iso-now.ts';

export interface HealthRoutesOptions {
  readiness: Readiness;
  /** NODE_ENV, already defaulted to `production`. */
  environment: string;
  /** The release that answers (lib/release-id.ts): liveness's `version`, health+json's `releaseId`; unset: neither. */
  version?: string;
  /**
   * Extra liveness fields (the backend's `database`, the device's backlog): plain JSON values, cheap to build. They
   * are serialized again only when they differ from the last ones, not on every probe.
   */
  details?: () => Record<string, unknown>;
}

const HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
const TEXT_HEADERS = { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' };
const HEALTH_JSON_HEADERS = { 'Content-Type': HEALTH_JSON, 'Cache-Control': 'no-store' };
const ALLOW = 'GET, HEAD';
export const OTHER_METHODS = ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'CONNECT'];

export function createHealthRoutes({ readiness, environment, version, details }: HealthRoutesOptions): Hono {
  const routes = new Hono();

  const versionJson = version === undefined ? '' : `,"version":${JSON.stringify(version)}`;
  const fixedJson = `"environment":${JSON.stringify(environment)}${versionJson}`;
  // The parts of the bodies that change only with readiness, or with what the details show, built once per change.
  let cachedFor: ReadinessSnapshot | undefined;
  let answers: ReadinessAnswers;
  let cachedDetails: unknown;
  let detailsJson = '';
  const current = () => {
    const snapshot = readiness.snapshot();
    if (snapshot !== cachedFor) {
      cachedFor = snapshot;
      answers = readinessAnswers(snapshot, version);
    }
    return answers;
  };

  routes.on(['GET', 'HEAD'], '/api/health', function liveness() {
    const shown = details?.();
    if (!sameJson(shown, cachedDetails)) {
      cachedDetails = shown;
      const inner = shown ? JSON.stringify(shown).slice(1, -1) : '';
      detailsJson = inner ? `,${inner}` : '';
    }
    const body = `{"status":"ok","timestamp":"${isoNow()}","uptime":${process.uptime()},${fixedJson}${detailsJson}}`;
    return new Response(body, { status: 200, headers: HEADERS });
  });

  routes.on(['GET', 'HEAD'], '/api/ready', function readinessProbe(c) {
    return answer(c, current().whole);
  });

  routes.on(['GET', 'HEAD'], '/api/ready/:check', function checkProbe(c) {
    const name = c.req.param('check');
    const found = current().checks.get(name);
    if (found) return answer(c, found);
    const known = [...current().checks.keys()].join(', ') || 'none';
    const error = `no readiness check ${JSON.stringify(name.slice(0, 60))}; the checks are: ${known}`;
    return new Response(JSON.stringify({ error }), { status: 404, headers: HEADERS });
  });

  // Only the other methods: a catch-all route would also match GET, and two matched handlers take Hono off
  // its single-handler fast path (about 10% of probe throughput).
  routes.on(OTHER_METHODS, ['/api/health', '/api/ready', '/api/ready/:check'], methodNotAllowed);
  return routes;
}

/** The form the request asks for; the default JSON unless `?verbose` or Accept names another. */
function answer(c: Context, found: ReadinessAnswer): Response {
  const form = readinessForm(queryOf(c), acceptOf(c));
  if (form === 'json') {
    const body = `{"status":"${found.status}","timestamp":"${isoNow()}"${found.jsonTail}`;
    return new Response(body, { status: found.code, headers: HEADERS });
  }
  if (form === 'verbose') return new Response(found.verbose, { status: found.code, headers: TEXT_HEADERS });
  if (form === 'health+json')
    return new Response(found.healthJson, { status: found.code, headers: HEALTH_JSON_HEADERS });
  return new Response(JSON.stringify({ error: form.problem }), { status: 400, headers: HEADERS });
}

/**
 * The query, without the `?`. A request target with no `?` has none, and then Hono's request object (`c.req`,
 * built on first use) is not built to say so: most probes ask nothing. With one, Hono's URL says what it is.
 */
function queryOf(c: Context): string {
  const target = (c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url;
  if (target !== undefined && !target.includes('?')) return '';
  const url = c.req.url;
  const q = url.indexOf('?');
  return q === -1 ? '' : url.slice(q + 1);
}

/** From Node's raw headers when served by @hono/node-server: building a whole Headers object costs each probe. */
function acceptOf(c: Context): string | null | undefined {
  const incoming = (c.env as { incoming?: { headers?: Record<string, string | string[] | undefined> } } | undefined)
    ?.incoming;
  if (incoming?.headers) return String(incoming.headers.accept ?? '');
  return c.req.raw.headers.get('accept');
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
