// The services' answers for an unknown route and an unexpected error: one-line JSON bodies, the stack on the log only.
import type { Hono } from 'hono';
import type { Logger } from './logger.ts';

/** Like every other body of theirs, never kept by a cache (docs/contract.md#endpoints). */
const NO_STORE = { 'Cache-Control': 'no-store' };

/** Sets `app`'s not-found (404) and error (500) handlers; returns `app`. */
export function answerErrorsInJson(app: Hono, log: Logger): Hono {
  app.notFound((c) => c.json({ error: `no route for ${c.req.method} ${c.req.path}` }, 404, NO_STORE));
  app.onError((error, c) => {
    log.error({ err: error, req: { method: c.req.method, url: c.req.path } }, 'request failed');
    return c.json({ error: 'internal error' }, 500, NO_STORE);
  });
  return app;
}
