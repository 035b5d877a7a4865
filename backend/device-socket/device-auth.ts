// Checks a device socket upgrade's `Authorization: Bearer <token>` against DEVICE_TOKEN and DEVICE_TOKENS, and
// says whom the token belongs to: one device (DEVICE_TOKENS) or any device (the shared DEVICE_TOKEN).
import { createHash, timingSafeEqual } from 'node:crypto';

/** Who a socket's token lets it speak for: `deviceId` for a device's own token, undefined for the shared one. */
export interface DeviceIdentity {
  deviceId: string | undefined;
}

export interface TokenCheckOptions {
  /** DEVICE_TOKEN: admits any device DEVICE_TOKENS does not list. */
  shared?: string;
  /** DEVICE_TOKENS: deviceId → that device's own token. */
  devices?: ReadonlyMap<string, string>;
}

/**
 * Returns a check for an Authorization header value: the identity its token grants, or undefined. The scheme is
 * matched case-insensitively, as RFC 7235 says of every auth scheme (`bearer`, `BEARER` are `Bearer`); the token
 * itself byte for byte, so a token in the wrong case is refused. The presented token is hashed first (SHA-256):
 * the shared token's digest is compared with timingSafeEqual, which leaks neither its length nor where the first
 * difference is; a device's token is looked up by its digest, and which digest bucket a guess lands in says
 * nothing an attacker can steer towards a real token.
 */
export function createTokenCheck({ shared, devices = new Map() }: TokenCheckOptions) {
  const sharedDigest = shared === undefined ? undefined : digest(shared);
  const owners = new Map([...devices].map(([deviceId, token]) => [digest(token).toString('base64'), deviceId]));
  return function identify(authorization: string | undefined): DeviceIdentity | undefined {
    const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
    // Hash even when the header is missing or malformed, so every refusal costs the same.
    const presented = digest(match?.[1] ?? '');
    const owner = owners.get(presented.toString('base64'));
    const isShared = sharedDigest !== undefined && timingSafeEqual(presented, sharedDigest);
    if (match === null) return undefined;
    if (owner !== undefined) return { deviceId: owner };
    return isShared ? { deviceId: undefined } : undefined;
  };
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
