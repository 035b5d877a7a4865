// Runs a function on every response an app gives, by wrapping `app.fetch` (which `app.request()` also goes
// through): the request log and the request metrics see each request this way.
import type { Hono } from 'hono';
import { getPath } from 'hono/utils/url';

/** What a hook learns of each request: its method, the path served, the status sent, milliseconds it took. */
export type OnServed = (method: string, path: string, status: number, ms: number) => void;

// The hooks of an app already wrapped: a second afterFetch() adds to them instead of wrapping again.
const HOOKS = Symbol('afterFetch hooks');

/**
 * Wraps `app.fetch` rather than adding a middleware: a middleware matches every path, and two matched handlers take
 * Hono off its single-handler fast path, which costs the probes about 10% of their throughput. Hono answers a
 * single-handler route synchronously, and @hono/node-server writes a synchronous Response on a faster path than an
 * awaited one: this stays synchronous whenever the app is. One wrapper serves every hook (the request log and the
 * metrics), which then share one clock reading, one path and one status.
 */
export function afterFetch<T extends Hono<any, any, any>>(app: T, onServed: OnServed): T {
  const wrapped = app as T & { [HOOKS]?: OnServed[] };
  if (wrapped[HOOKS]) {
    wrapped[HOOKS].push(onServed);
    return app;
  }
  const hooks = (wrapped[HOOKS] = [onServed]);
  const served = (request: Request, env: unknown, response: Response, started: number) => {
    const ms = performance.now() - started;
    const path = pathOf(request, env);
    const status = wireStatus(request, env, response);
    const method = request.method;
    for (const hook of hooks) hook(method, path, status, ms);
    return response;
  };
  const fetch = app.fetch;
  app.fetch = function fetchThen(request, env, executionCtx) {
    const started = performance.now();
    const result = fetch(request, env, executionCtx);
    if (result instanceof Promise) return result.then((response) => served(request, env, response, started));
    return served(request, env, result, started);
  };
  return app;
}

/**
 * The path the app served, without the query or fragment. Node's raw request target is it when it is a plain
 * path (cheaper than parsing a URL); an absolute-form target (`http://u:p@x/metrics`), dot segments
 * (`/api/./health`) or percent-escapes are served by Hono as the normalised path, so Hono's own getPath says which
 * (never the raw target, which may carry credentials and is chosen freely by the client).
 */
export function pathOf(request: Request, env: unknown): string {
  const raw = (env as { incoming?: { url?: string } } | undefined)?.incoming?.url;
  if (raw === undefined || raw[0] !== '/' || raw.includes('/.') || raw.includes('%')) return getPath(request);
  // The path ends at the query or, as Hono's getPath has it, at a fragment (Node takes `#` in a request line).
  for (let i = 1; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code === 63 || code === 35) return raw.slice(0, i); // '?' or '#'
  }
  return raw;
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
