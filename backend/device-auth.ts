// Checks a device socket upgrade's `Authorization: Bearer <token>` against DEVICE_TOKEN in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Returns a check for an Authorization header value. The scheme is matched case-insensitively, as RFC 7235
 * says of every auth scheme (`bearer`, `BEARER` are `Bearer`); the token itself is compared byte for byte,
 * so a token in the wrong case is refused. Both sides are hashed first: equal-length digests let
 * timingSafeEqual compare without leaking the token's length or where the first difference is.
 */
export function createTokenCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return function isAuthorized(authorization) {
    const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
    // Hash even when the header is missing or malformed, so every refusal costs the same.
    return timingSafeEqual(digest(match?.[1] ?? ''), expected) && match !== null;
  };
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
