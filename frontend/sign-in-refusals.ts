// The one-line answers a sign-in or sign-out gets when it is refused before its token is read: the scheme, the
// origin, the rate and the size, each saying why and what to do.
import type { Context } from 'hono';
import { csrf } from 'hono/csrf';

/** A form with a token in it is tiny; more is not a sign-in. */
export const MAX_FORM_BYTES = 4096;

const NO_STORE = { 'Cache-Control': 'no-store' };

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

/** Hono's own check (Origin or Sec-Fetch-Site says this origin), asked as a yes or no. */
const sameSite = csrf();
export async function fromThisOrigin(c: Context): Promise<boolean> {
  let passed = false;
  await sameSite(c, async () => {
    passed = true;
  }).catch(() => undefined); // csrf() throws its bare 403; the answer below says why instead
  return passed;
}

/** A form posted from elsewhere, or by a client that sends no Origin (curl), in one line with the fix. */
export function otherOrigin(c: Context): Response {
  const expected = new URL(c.req.url).origin;
  const origin = c.req.header('origin');
  const from = origin === undefined ? 'no Origin header' : `Origin ${JSON.stringify(origin.slice(0, 100))}`;
  const line =
    `${c.req.path.slice(1)} refused: the form must come from this site's own page (${expected}), and this ` +
    `request has ${from}; curl sends none: add -H 'Origin: ${expected}'.\n`;
  return c.text(line, 403, NO_STORE);
}

export function tooManyWrong(c: Context, retryAfterS: number): Response {
  const line = `Too many wrong tokens from this address: try again in ${retryAfterS} s.\n`;
  return c.text(line, 429, { ...NO_STORE, 'Retry-After': String(retryAfterS) });
}

/** The body ended before it was whole (a connection cut mid-body, a chunked body without its last chunk). */
export function formUnreadable(c: Context): Response {
  return c.text('Sign-in form unreadable: the body ended before it was complete.\n', 400, NO_STORE);
}

export function formTooLarge(c: Context): Response {
  return c.text(`Sign-in form too large: a token form is at most ${MAX_FORM_BYTES} bytes.\n`, 413, NO_STORE);
}
