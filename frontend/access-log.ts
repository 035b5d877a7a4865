// One plain console line per request (time, method, path, status, duration): the frontend does not emit JSON logs.
import type { MiddlewareHandler } from 'hono';

export type LogLine = (line: string) => void;

// The path is attacker-chosen text, so it is logged still percent-encoded: a decoded space or newline could
// forge extra fields or lines. Anything else unprintable is replaced all the same.
const printable = (url: string) => new URL(url).pathname.replace(/[^\x21-\x7e]/g, '?').slice(0, 300);

export function accessLog(log: LogLine): MiddlewareHandler {
  return async function logRequest(c, next) {
    const started = performance.now();
    await next();
    const ms = Math.round(performance.now() - started);
    log(`${new Date().toISOString()} ${c.req.method} ${printable(c.req.url)} ${c.res.status} ${ms}ms`);
  };
}
