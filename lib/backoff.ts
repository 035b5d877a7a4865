// Retry delays (the device's serial port and backend socket, the backend's database writes): exponential, capped,
// with jitter.

export interface Backoff {
  /** The delay before the next attempt; each call doubles the base until the cap. */
  next(): number;
  /** Call after a success so the next failure starts from the initial delay again. */
  reset(): void;
  /** Failed attempts since the last reset. */
  readonly attempts: number;
}

export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
  /** Returns a number in [0, 1); replaceable so tests can pin the jitter. */
  random?: () => number;
}

export function createBackoff({ initialMs = 100, maxMs = 2000, random = Math.random }: BackoffOptions = {}): Backoff {
  let attempts = 0;
  return {
    next() {
      const base = Math.min(maxMs, initialMs * 2 ** Math.min(attempts, 30));
      attempts += 1;
      // "Equal jitter": between half and all of the base, so many devices restarting together spread out
      // while the delay never exceeds the cap.
      return Math.round(base / 2 + (base / 2) * random());
    },
    reset() {
      attempts = 0;
    },
    get attempts() {
      return attempts;
    },
  };
}
