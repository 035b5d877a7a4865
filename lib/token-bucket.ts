// A token bucket: allows bursts up to `burst` messages and `perSecond` messages a second sustained.

export interface TokenBucket {
  /** Takes one token; false when the bucket is empty (the sender is over its rate). */
  take(): boolean;
  /** Milliseconds until the next token (0 when one is there now). */
  wait(): number;
}

export function createTokenBucket({
  perSecond,
  burst,
  now = () => performance.now(),
}: {
  perSecond: number;
  burst: number;
  now?: () => number;
}): TokenBucket {
  let tokens = burst;
  let last = now();
  const refill = () => {
    const t = now();
    tokens = Math.min(burst, tokens + ((t - last) / 1000) * perSecond);
    last = t;
  };
  return {
    take() {
      refill();
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    wait() {
      refill();
      return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) / perSecond) * 1000);
    },
  };
}
