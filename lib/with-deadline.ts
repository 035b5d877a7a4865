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

/**
 * An AbortSignal for a deadline `ms` from now, aborted only after the I/O waiting by then has been handled (timers
 * run before the poll for I/O, immediates after it): a process that was itself paused past the deadline (SIGSTOP, a
 * long pause in GC) first reads the answer that arrived meanwhile, instead of abandoning a write the other side did
 * complete. Hand it to the client library and to `settledBy`.
 */
export function deadlineSignal(ms: number): AbortSignal {
  return clearableDeadline(ms).signal;
}

/**
 * As deadlineSignal, with `clear()` for work done before it: the timer goes, and the signal never aborts. A fleet's
 * writes left thousands of those timers pending, each firing seconds later to abort a signal nobody listened to.
 */
export function clearableDeadline(ms: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    setImmediate(() => controller.abort(new DeadlineError('the operation', ms)));
  }, ms);
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/**
 * `operation`, or a rejection with the signal's reason once `signal` aborts, whether or not the library that was
 * given the signal acts on it. The MongoDB driver takes a signal on writes too, but it alone may never settle one: a
 * connection the server closed (FIN) just as the write was checked out is destroyed before the driver hears of it,
 * the write then waits for a 'drain' that never comes (mongodb 7.9, seen in
 * test/faults/readings-end-to-end.fault.ts), and the device's readings would wait unacknowledged forever.
 */
export function settledBy<T>(operation: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    operation.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
