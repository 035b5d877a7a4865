// Logs every HTTP request with `req`, status and response time; successful probes go at debug level.
import type { Hono } from 'hono';
import type { Logger } from './logger.ts';
import { afterFetch } from './after-fetch.ts';

// /metrics too: a scraper calls it every few seconds.
const PROBE_PATHS = new Set(['/api/health', '/api/ready', '/metrics']);

/** Wraps `app.fetch` (lib/after-fetch.ts says why not a middleware). */
export function logRequests<T extends Hono<any, any, any>>(
  app: T,
  log: Logger,
  { quietPaths = [] }: { quietPaths?: string[] } = {},
): T {
  // Paths whose service logs what matters itself, rate-limited: each request there is only worth a debug line.
  const quiet = new Set(quietPaths);
  return afterFetch(app, logged);

  function logged(method: string, path: string, status: number, ms: number): void {
    // A per-check readiness probe (/api/ready/<check>) is a probe too.
    const probe = PROBE_PATHS.has(path) || path.startsWith('/api/ready/');
    // Orchestrators probe every few seconds: a passing probe is noise, a failing one is news.
    const level = (probe && status < 400) || quiet.has(path) ? 'debug' : status >= 500 && !probe ? 'error' : 'info';
    if (log.isLevelEnabled(level)) {
      log[level](
        {
          req: { method, url: path },
          res: { statusCode: status },
          responseTime: Math.round(ms * 100) / 100,
        },
        'request completed',
      );
    }
  }
}
