// Operator sessions held by this process: a sign-in with a listed token makes a random session id (the cookie), and
// a sign-out, the session's expiry, or its token leaving the list (a reload or a restart) ends it, so a cookie
// replayed afterwards is a stranger's.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Twelve hours: a working day, after which the operator signs in again. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** More live sessions than operators will ever hold; past it the oldest ends, so memory stays bounded. */
export const MAX_SESSIONS = 1000;

export interface OperatorSessions {
  /** The cookie value for a valid operator token; undefined for any other text. */
  signIn(token: string): string | undefined;
  /** True while the cookie names a session that was neither ended nor expired. */
  verify(cookie: string | undefined): boolean;
  /** Ends the session the cookie names, if any; the cookie is a stranger's from then on. */
  signOut(cookie: string | undefined): void;
  /** Replaces the listed tokens; every session a token no longer listed opened ends. Returns how many ended. */
  setTokens(tokens: readonly string[]): number;
}

export interface OperatorSessionOptions {
  tokens: readonly string[];
  ttlMs?: number;
  now?: () => number;
  maxSessions?: number;
}

// Hashing first makes both sides 32 bytes, so timingSafeEqual never throws on a length and leaks none.
const digest = (text: string) => createHash('sha256').update(text).digest();
// Sessions are found by the digest of their id, so what is kept in memory is no cookie anyone could replay.
const sessionKey = (cookie: string) => digest(cookie).toString('base64url');

export function createOperatorSessions({
  tokens,
  ttlMs = SESSION_TTL_MS,
  now = Date.now,
  maxSessions = MAX_SESSIONS,
}: OperatorSessionOptions): OperatorSessions {
  let known = tokens.map((token) => digest(token));
  /**
   * Session key → when it expires and the digest of the token that opened it (never the token), in the order they
   * began, so the oldest is first.
   */
  const live = new Map<string, { expires: number; opener: Buffer }>();

  /** Every token is compared (no early exit), so the time taken says nothing about which one matched. */
  function matching(candidate: string): Buffer | undefined {
    const hash = digest(candidate);
    let found: Buffer | undefined;
    for (const expected of known) if (timingSafeEqual(hash, expected)) found = expected;
    return found;
  }

  return {
    signIn(token) {
      const opener = matching(token);
      if (opener === undefined) return undefined;
      const cookie = randomBytes(32).toString('base64url');
      live.set(sessionKey(cookie), { expires: now() + ttlMs, opener });
      if (live.size > maxSessions) live.delete(live.keys().next().value!);
      return cookie;
    },
    verify(cookie) {
      if (!cookie) return false;
      const key = sessionKey(cookie);
      const expires = live.get(key)?.expires ?? 0; // no such session: as if it had ended long ago
      if (expires > now()) return true;
      live.delete(key);
      return false;
    },
    signOut(cookie) {
      if (cookie) live.delete(sessionKey(cookie));
    },
    setTokens(next) {
      known = next.map((token) => digest(token));
      const listed = new Set(known.map((hash) => hash.toString('base64url')));
      let ended = 0;
      for (const [key, { opener }] of live) {
        if (listed.has(opener.toString('base64url'))) continue;
        live.delete(key);
        ended++;
      }
      return ended;
    },
  };
}
