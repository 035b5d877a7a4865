// Operator sign-in without a session store: a token is checked in constant time, and the session cookie is a
// signed expiry (HMAC keyed by the operator token that signed in), so it survives restarts, works on every
// replica, and dies with its token when the token is rotated out of OPERATOR_TOKENS_FILE.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Twelve hours: a working day, after which the operator signs in again. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface OperatorSessions {
  /** The cookie value for a valid operator token; undefined for any other text. */
  signIn(token: string): string | undefined;
  /** True when the cookie value was signed by a current operator token and has not expired. */
  verify(cookie: string | undefined): boolean;
}

export interface OperatorSessionOptions {
  tokens: readonly string[];
  ttlMs?: number;
  now?: () => number;
}

// Hashing first makes both sides 32 bytes, so timingSafeEqual never throws on a length and leaks none.
const digest = (text: string) => createHash('sha256').update(text).digest();
const sign = (token: string, expires: number) =>
  createHmac('sha256', token).update(`operator-session:${expires}`).digest('base64url');

export function createOperatorSessions({
  tokens,
  ttlMs = SESSION_TTL_MS,
  now = Date.now,
}: OperatorSessionOptions): OperatorSessions {
  const known = tokens.map((token) => ({ token, hash: digest(token) }));

  /** Every token is compared (no early exit), so the time taken says nothing about which one matched. */
  function match(candidate: string): string | undefined {
    const hash = digest(candidate);
    let found: string | undefined;
    for (const { token, hash: expected } of known) if (timingSafeEqual(hash, expected)) found ??= token;
    return found;
  }

  return {
    signIn(token) {
      const found = match(token);
      if (found === undefined) return undefined;
      const expires = now() + ttlMs;
      return `${expires}.${sign(found, expires)}`;
    },
    verify(cookie) {
      const [expiresText, mac, ...rest] = (cookie ?? '').split('.');
      const expires = Number(expiresText);
      if (rest.length > 0 || !mac || !/^\d{1,15}$/.test(expiresText ?? '') || expires <= now()) return false;
      const given = digest(mac);
      let valid = false;
      for (const { token } of known) if (timingSafeEqual(given, digest(sign(token, expires)))) valid = true;
      return valid;
    },
  };
}
