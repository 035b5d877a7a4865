// Lets a request read device data only with `Authorization: Bearer <token>` naming one of READ_TOKENS
// (docs/access.md#read-access); a missing or wrong one gets 401 with a one-line body and nothing listed.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';

/** Replaces the tokens in force. */
export type SetTokens = (tokens: readonly string[]) => void;

const NO_STORE = { 'Cache-Control': 'no-store' };
const REALM = 'Bearer realm="device data"';

/**
 * Middleware for the read routes. With no tokens every request is refused: secure by default, as the device
 * socket is without DEVICE_TOKEN. The presented token is hashed (SHA-256) and its digest compared with every
 * token's digest by timingSafeEqual, all of them every time: how long a refusal takes says neither how much of a
 * guess was right nor which token it came near. `onReload` is given what replaces the tokens, once.
 */
export function createReadGate(
  tokens: readonly string[],
  onReload?: (setTokens: SetTokens) => void,
): MiddlewareHandler {
  let digests = tokens.map(digest);
  // A reload (SIGHUP, backend/main.ts) replaces the list whole: the next request is judged by the new one.
  onReload?.((listed) => void (digests = listed.map(digest)));
  return async function readGate(c, next) {
    const match = /^Bearer +(\S+) *$/i.exec(c.req.header('Authorization') ?? '');
    const presented = digest(match?.[1] ?? '');
    let granted = false;
    for (const known of digests) granted = timingSafeEqual(presented, known) || granted;
    if (match !== null && granted) return next();
    // RFC 6750 §3: no credential → just the challenge; a wrong one → error="invalid_token".
    const challenge = match === null ? REALM : `${REALM}, error="invalid_token"`;
    const error =
      match === null
        ? 'a read token is required: send Authorization: Bearer <token> (READ_TOKENS on the backend)'
        : 'the read token is not valid';
    return c.json({ error }, 401, { ...NO_STORE, 'WWW-Authenticate': challenge });
  };
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
