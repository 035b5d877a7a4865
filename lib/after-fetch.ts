// Runs a function on every response an app gives, by wrapping `app.fetch` (which `app.request()` also goes
// through): the request log and the request metrics see each request this way.
import type { Hono } from 'hono';

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

/** The path without the query; from Node's raw request line when there is one (cheaper than parsing a URL). */
export function pathOf(request: Request, env: unknown): string {
  const raw = (env as { incoming?: { url?: string } } | undefined)?.incoming?.url;
  const url = raw ?? new URL(request.url).pathname;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
