// Runs a function on every response an app gives, by wrapping `app.fetch` (which `app.request()` also goes
// through): the request log and the request metrics see each request this way.
import type { Hono } from 'hono';
import { getPath } from 'hono/utils/url';

/** Given the request, the server's env, the response and when the request began; returns the response to send. */
export type OnResponse = (request: Request, env: unknown, response: Response, started: number) => Response;

/**
 * Wraps `app.fetch` rather than adding a middleware: a middleware matches every path, and two matched handlers take
 * Hono off its single-handler fast path, which costs the probes about 10% of their throughput. Hono answers a
 * single-handler route synchronously, and @hono/node-server writes a synchronous Response on a faster path than an
 * awaited one: this stays synchronous whenever the app is.
 */
export function afterFetch<T extends Hono<any, any, any>>(app: T, onResponse: OnResponse): T {
  const fetch = app.fetch;
  app.fetch = function fetchThen(request, env, executionCtx) {
    const started = performance.now();
    const result = fetch(request, env, executionCtx);
    if (result instanceof Promise) return result.then((response) => onResponse(request, env, response, started));
    return onResponse(request, env, result, started);
  };
  return app;
}

/**
 * The path the app served, without the query. Node's raw request target is it when it is a plain path (cheaper
 * than parsing a URL); an absolute-form target (`http://u:p@x/metrics`), dot segments (`/api/./health`) or
 * percent-escapes are served by Hono as the normalised path, so Hono's own getPath says which (never the raw
 * target, which may carry credentials and is chosen freely by the client).
 */
export function pathOf(request: Request, env: unknown): string {
  const raw = (env as { incoming?: { url?: string } } | undefined)?.incoming?.url;
  if (raw === undefined || raw[0] !== '/' || raw.includes('/.') || raw.includes('%')) return getPath(request);
  const query = raw.indexOf('?');
  return query === -1 ? raw : raw.slice(0, query);
}

/**
 * The status the client gets. @hono/node-server answers an accepted WebSocket upgrade with an empty 200
 * placeholder and then completes the handshake itself, so the client gets 101 Switching Protocols. Only a 200 to
 * a request that asked for an upgrade has its body looked at: reading `response.body` turns @hono/node-server's
 * lightweight Response into a full one with a stream, which sends headers and body in two writes and cost the
 * probes more than half their throughput. The raw Node headers are read where there are some, for the same reason.
 */
export function wireStatus(request: Request, env: unknown, response: Response): number {
  if (response.status !== 200) return response.status;
  const incoming = (env as { incoming?: { headers?: Record<string, string | string[] | undefined> } } | undefined)
    ?.incoming;
  const upgrade = incoming?.headers ? incoming.headers.upgrade : request.headers.get('upgrade');
  if (typeof upgrade !== 'string' || upgrade.toLowerCase() !== 'websocket') return 200;
  return response.body === null ? 101 : 200;
}
