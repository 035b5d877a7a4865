// Who sees the fleet and the readings: in local mode everyone; otherwise only an operator signed in over TLS
// (GET/POST /sign-in, POST /sign-out), remembered by a session cookie that scripts and other sites never see.
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { createSummedWarning } from '../lib/summed-warning.ts';
import type { LogLine } from './access-log.ts';
import { createOperatorSessions, SESSION_TTL_MS } from './operator-session.ts';
import { createSignInLimit, type SignInLimit } from './sign-in-limit.ts';
import { signInPage } from './sign-in-page.ts';
import type { SignInMeter } from './sign-in-metrics.ts';
import * as refuse from './sign-in-refusals.ts';

/** `open`: local mode, no sign-in. `tokens`: OPERATOR_TOKENS(_FILE); empty, nobody can sign in. */
export type OperatorAccess = 'open' | { tokens: readonly string[] };

/** `__Host-`: the browser keeps it only when it came over HTTPS, for this host alone, with Path=/. */
export const SESSION_COOKIE = '__Host-operator';

export interface OperatorGate {
  isOperator(c: Context): boolean;
  /** Replaces the operators' tokens (a reload); ends every session of a token no longer listed, returns how many. */
  setTokens(tokens: readonly string[]): number;
}

export interface OperatorAccessOptions {
  /** Where this frontend serves HTTPS as the browser sees it, once listening; undefined when nowhere. */
  httpsPort?: () => number | undefined;
  log?: LogLine;
  limit?: SignInLimit;
  /** Counts refused sign-ins (frontend_sign_ins_refused_total); none when metrics are off. */
  meter?: SignInMeter;
}

type IncomingEnv = { incoming?: { socket?: { encrypted?: boolean; remoteAddress?: string } } } | undefined;
const socketOf = (c: Context) => (c.env as IncomingEnv)?.incoming?.socket;

/** True when this request came over a TLS connection the frontend itself terminated. */
const overTls = (c: Context) => socketOf(c)?.encrypted === true;

const html = (c: Context, body: string, status: 200 | 401) => c.html(body, status, { 'Cache-Control': 'no-store' });

/**
 * Reads the body only up to MAX_FORM_BYTES while it arrives, chunked or not (Hono's bodyLimit), so a stranger's
 * endless body costs no memory: 413 in one line past it. A chunked body cut off before its last chunk fails the read:
 * a one-line 400, never Hono's 500 with a stack in the log.
 */
const bounded = bodyLimit({ maxSize: refuse.MAX_FORM_BYTES, onError: refuse.formTooLarge });
const formBound: MiddlewareHandler = (c, next) => bounded(c, next).catch(() => refuse.formUnreadable(c));

/** The summed warning's words for `n` wrong tokens (the first alone, then those of each interval). */
export const wrongTokensLine = (n: number) => `${n} wrong operator token${n === 1 ? '' : 's'} at /sign-in`;

/** Whether the body could be read to its end (Hono keeps it, so the form is parsed from the same bytes). */
const arrivedWhole = (c: Context) =>
  c.req.arrayBuffer().then(
    () => true,
    () => false,
  );

export function operatorAccess(app: Hono, access: OperatorAccess, options: OperatorAccessOptions = {}): OperatorGate {
  const { httpsPort = () => undefined, log = () => {}, limit = createSignInLimit(), meter } = options;
  const sessions = access === 'open' ? undefined : createOperatorSessions({ tokens: access.tokens });
  // Only over TLS: a cookie sent on plain HTTP (a client that ignores Secure, or a browser that trusts localhost)
  // would have the fleet travel back in the clear.
  const isOperator = (c: Context) =>
    sessions === undefined || (overTls(c) && sessions.verify(getCookie(c, SESSION_COOKIE)));
  const needsTls = (c: Context) => c.text(refuse.needsTlsLine(httpsPort()), 403, { 'Cache-Control': 'no-store' });
  const wrong = createSummedWarning(
    { warn: (fields, message) => log(`frontend: ${message} (latest from ${fields.address}; ${fields.total} in all)`) },
    wrongTokensLine,
  );

  app.get('/sign-in', function signInForm(c) {
    if (sessions === undefined) return html(c, signInPage('open'), 200);
    if (isOperator(c)) return html(c, signInPage('signed-in'), 200);
    // The form is not even shown over plain HTTP, so nobody types a token into it there.
    if (!overTls(c)) return needsTls(c);
    return html(c, signInPage('form'), 200);
  });

  // Each door in the order that tells the caller the most: scheme, origin, rate, then the bounded body.
  app.post('/sign-in', async function signInGate(c, next) {
    if (sessions === undefined) return c.redirect('/', 303);
    if (!overTls(c)) return needsTls(c);
    if (!(await refuse.fromThisOrigin(c))) return refuse.otherOrigin(c);
    const wait = limit.retryAfterS(socketOf(c)?.remoteAddress ?? '');
    if (wait > 0) {
      meter?.refused('rate_limited');
      return refuse.tooManyWrong(c, wait);
    }
    await next();
  });

  app.post('/sign-in', formBound, async function signIn(c) {
    // A body that ends before its Content-Length is no form, and no guess: it is not counted as a wrong token. One
    // that arrived whole but is no form (a broken multipart) is a wrong token, as one without the field is.
    if (!(await arrivedWhole(c))) return refuse.formUnreadable(c);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const token = typeof form.token === 'string' ? form.token.trim() : '';
    const cookie = token ? sessions!.signIn(token) : undefined;
    if (cookie === undefined) {
      const address = socketOf(c)?.remoteAddress ?? '';
      limit.failed(address);
      wrong.note({ address });
      meter?.refused('wrong_token');
      return html(c, signInPage('wrong'), 401);
    }
    const maxAge = SESSION_TTL_MS / 1000;
    setCookie(c, SESSION_COOKIE, cookie, { httpOnly: true, secure: true, sameSite: 'Strict', path: '/', maxAge });
    return c.redirect('/', 303);
  });

  app.post('/sign-out', async function signOut(c) {
    if (!(await refuse.fromThisOrigin(c))) return refuse.otherOrigin(c);
    // Ended here, not only forgotten by the browser: the same cookie replayed afterwards is a stranger's.
    sessions?.signOut(getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: true });
    return c.redirect('/', 303);
  });

  return { isOperator, setTokens: (tokens) => sessions?.setTokens(tokens) ?? 0 };
}
