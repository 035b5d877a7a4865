// The one way to bound a wait, in the spirit of hono's timeout(): a promise's outcome, or a DeadlineError once
// `ms` have passed. Shipped code (the HTTP probe) and the tools both use it.

/** What was awaited did not settle in time; `what` and `ms` say which wait and how long it was given. */
export class DeadlineError extends Error {
  override name = 'DeadlineError';
  readonly what: string;
  readonly ms: number;
  // Plain fields, not parameter properties: those are not erasable syntax, and Node strips types only.
  constructor(what: string, ms: number) {
    super(`${what}: no answer within ${ms} ms`);
    this.what = what;
    this.ms = ms;
  }
}

export interface DeadlineOptions {
  /** What is awaited, for the error: `cannot resolve example.org`, `Chromium to close`. */
  what: string;
  /** Called once when the time is up, before the rejection: end what was awaited (destroy a socket, kill a child). */
  onExpiry?: () => void;
  /** The timer alone does not keep the process alive (a shutdown that must not outlive its last handle). */
  unref?: boolean;
}

/**
 * Settles as `promise` does, or rejects with a DeadlineError after `ms`; the timer is always cleared. A late
 * rejection of `promise` is not reported as unhandled: once the time is up, its outcome no longer matters.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, options: string | DeadlineOptions): Promise<T> {
  const { what, onExpiry, unref = false } = typeof options === 'string' ? { what: options } : options;
  const limit = Math.max(0, ms);
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onExpiry?.();
      reject(new DeadlineError(what, limit));
    }, limit);
    if (unref) timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
