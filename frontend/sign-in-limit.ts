// How fast wrong sign-ins may come: per client address and over all addresses, so a guessing run is slow and
// loud while the right token still works for everyone else (docs/access.md#guessing-is-slow-and-loud).
import { createTokenBucket, type TokenBucket } from '../lib/token-bucket.ts';

/** Ten wrong tokens at once, then one a minute: a person mistypes a few times, a script gets 60 an hour. */
export const PER_ADDRESS = { burst: 10, perSecond: 1 / 60 };
/** A hundred at once over all addresses, then one a second: more than every operator mistyping at once. */
export const OVERALL = { burst: 100, perSecond: 1 };
/** Addresses remembered; past it the oldest is forgotten, so many addresses cannot grow memory. */
export const MAX_ADDRESSES = 10_000;

export interface SignInLimit {
  /** Seconds the address must wait before its token is even checked; 0 when it may try now. */
  retryAfterS(address: string): number;
  /** Counts a wrong token from the address. */
  failed(address: string): void;
}

export interface SignInLimitOptions {
  perAddress?: { burst: number; perSecond: number };
  overall?: { burst: number; perSecond: number };
  maxAddresses?: number;
  now?: () => number;
}

export function createSignInLimit({
  perAddress = PER_ADDRESS,
  overall = OVERALL,
  maxAddresses = MAX_ADDRESSES,
  now,
}: SignInLimitOptions = {}): SignInLimit {
  const all = createTokenBucket({ ...overall, now });
  /** Only addresses that sent a wrong token are here, oldest first. */
  const failing = new Map<string, TokenBucket>();
  const seconds = (ms: number) => Math.ceil(ms / 1000);

  return {
    retryAfterS(address) {
      const own = failing.get(address);
      if (own === undefined) return 0; // a clean address always gets its try: the right token works during an attack
      return seconds(Math.max(own.wait(), all.wait()));
    },
    failed(address) {
      let own = failing.get(address);
      if (own === undefined) {
        own = createTokenBucket({ ...perAddress, now });
        if (failing.size >= maxAddresses) failing.delete(failing.keys().next().value!);
        failing.set(address, own);
      }
      own.take();
      all.take();
    },
  };
}
