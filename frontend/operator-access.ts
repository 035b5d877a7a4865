// Who sees the fleet and the readings: in local mode everyone; otherwise only an operator signed in over TLS
// (GET/POST /sign-in, POST /sign-out), remembered by a session cookie that scripts and other sites never see.
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { createOperatorSessions, SESSION_TTL_MS } from './operator-session.ts';
import { signInPage } from './sign-in-page.ts';

/** `open`: local mode, no sign-in. `tokens`: OPERATOR_TOKENS(_FILE); empty, nobody can sign in. */
export type OperatorAccess = 'open' | { tokens: readonly string[] };

/** `__Host-`: the browser keeps it only when it came over HTTPS, for this host alone, with Path=/. */
export const SESSION_COOKIE = '__Host-operator';

/** A form with a token in it is tiny; more is not a sign-in. */
const MAX_FORM_BYTES = 4096;

export interface OperatorGate {
  isOperator(c: Context): boolean;
}

/** True when this request came over a TLS connection the frontend itself terminated. */
function overTls(c: Context): boolean {
  const env = c.env as { incoming?: { socket?: { encrypted?: boolean } } } | undefined;
  return env?.incoming?.socket?.encrypted === true;
}

const html = (c: Context, body: string, status: 200 | 401 | 413) =>
  c.html(body, status, { 'Cache-Control': 'no-store' });

/**
 * The refusal over plain HTTP, one line naming where HTTPS is. Judged by the socket alone: an X-Forwarded-Proto
 * header is anyone's to send on port 80, so it is never read.
 */
export function needsTlsLine(httpsPort: number | undefined): string {
  if (httpsPort === undefined)
    return 'Sign-in needs HTTPS, and this frontend serves none: set HTTPS_PORT, TLS_CERT_FILE and TLS_KEY_FILE.\n';
  const why = 'over plain HTTP a token could be read';
  return `Sign-in needs HTTPS: open https:// on port ${httpsPort} of this host; ${why}.\n`;
}

/** `httpsPort`: where this frontend serves HTTPS as the browser sees it, once listening; undefined when nowhere. */
export function operatorAccess(
  app: Hono,
  access: OperatorAccess,
  httpsPort: () => number | undefined = () => undefined,
): OperatorGate {
  const sessions = access === 'open' ? undefined : createOperatorSessions({ tokens: access.tokens });
  // Only over TLS: a cookie sent on plain HTTP (a client that ignores Secure, or a browser that trusts localhost)
  // would have the fleet travel back in the clear.
  const isOperator = (c: Context) =>
    sessions === undefined || (overTls(c) && sessions.verify(getCookie(c, SESSION_COOKIE)));

  const needsTls = (c: Context) => c.text(needsTlsLine(httpsPort()), 403, { 'Cache-Control': 'no-store' });

  app.get('/sign-in', function signInForm(c) {
    if (sessions === undefined) return html(c, signInPage('open'), 200);
    if (isOperator(c)) return html(c, signInPage('signed-in'), 200);
    // The form is not even shown over plain HTTP, so nobody types a token into it there.
    if (!overTls(c)) return needsTls(c);
    return html(c, signInPage('form'), 200);
  });

  app.post('/sign-in', async function signIn(c) {
    if (sessions === undefined) return c.redirect('/', 303);
    if (!overTls(c)) return needsTls(c);
    if (Number(c.req.header('content-length') ?? 0) > MAX_FORM_BYTES) return html(c, signInPage('wrong'), 413);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const token = typeof form.token === 'string' ? form.token.trim() : '';
    const cookie = token ? sessions.signIn(token) : undefined;
    if (cookie === undefined) return html(c, signInPage('wrong'), 401);
    setCookie(c, SESSION_COOKIE, cookie, {
      httpOnly: true,
      secure: true,
      sameSite: 'Strict',
      path: '/',
      maxAge: SESSION_TTL_MS / 1000,
    });
    return c.redirect('/', 303);
  });

  app.post('/sign-out', function signOut(c) {
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: true });
    return c.redirect('/', 303);
  });

  return { isOperator };
}
