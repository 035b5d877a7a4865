// Logs every HTTP request with `req`, status and response time; successful probes go at debug level.
import type { MiddlewareHandler } from 'hono';
import type { Logger } from './logger.ts';

const PROBE_PATHS = new Set(['/api/health', '/api/ready']);

export function requestLog(log: Logger): MiddlewareHandler {
  return async function logRequest(c, next) {
    const started = performance.now();
    await next();
    const status = c.res.status;
    const probe = PROBE_PATHS.has(c.req.path);
    // Orchestrators probe every few seconds: a passing probe is noise, a failing one is news.
    const level = probe && status < 400 ? 'debug' : status >= 500 && !probe ? 'error' : 'info';
    if (!log.isLevelEnabled(level)) return;
    log[level](
      {
        req: { method: c.req.method, url: c.req.path },
        res: { statusCode: status },
        responseTime: Math.round((performance.now() - started) * 100) / 100,
      },
      'request completed',
    );
  };
}
