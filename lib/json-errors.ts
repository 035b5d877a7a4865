// The services' answers for an unknown route and an unexpected error: one-line JSON bodies, the stack on the log only.
import type { Hono } from 'hono';
import type { Logger } from './logger.ts';

/**
 * Like every other body of theirs, never kept by a cache (docs/contract.md#endpoints); a plain object of headers in
 * the health routes' order and case, so that these answers' bytes read like theirs.
 */
const HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
const json = (body: object, status: number) => new Response(JSON.stringify(body), { status, headers: HEADERS });

/** Sets `app`'s not-found (404) and error (500) handlers; returns `app`. */
export function answerErrorsInJson(app: Hono, log: Logger): Hono {
  app.notFound((c) => json({ error: `no route for ${c.req.method} ${c.req.path}` }, 404));
  app.onError((error, c) => {
    log.error({ err: error, req: { method: c.req.method, url: c.req.path } }, 'request failed');
    return json({ error: 'internal error' }, 500);
  });
  return app;
}
