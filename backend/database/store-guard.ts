// The one way every store call talks to MongoDB: fail at once while the database monitor says disconnected, bound
// the request (maxTimeMS on the server, a deadline on the client), and turn whatever the driver throws into a one-line
// DatabaseUnavailableError that never shows the URI's password.
import { scrubSecrets } from '../../lib/redact-url.ts';
import { clearableDeadline } from '../../lib/with-deadline.ts';
import { DatabaseUnavailableError } from './database-unavailable-error.ts';

/** A query's bounds: maxTimeMS for each command, and one deadline on the client for all of them. */
export interface Bounds {
  maxTimeMS: number;
  signal: AbortSignal;
}

/** A write's deadline, and what to say when it passed. */
export interface Deadline {
  signal: AbortSignal;
  missed: string;
}

export interface StoreGuard {
  /** Fresh bounds for one request. */
  bounds(): Bounds;
  /** Runs a query within fresh bounds. */
  query<T>(call: (bounds: Bounds) => Promise<T>): Promise<T>;
  /** Runs a write (`what` names it in the error) within a fresh deadline. */
  write<T>(what: string, call: (deadline: Deadline) => Promise<T>): Promise<T>;
}

export interface StoreGuardOptions {
  isConnected: () => boolean;
  uri: string;
  queryTimeoutMs: number;
  writeDeadlineMs: number;
  /** Each request the server answered: a sign of life the device thread passes to the database monitor. */
  onAnswer?: () => void;
}

export function createStoreGuard(options: StoreGuardOptions): StoreGuard {
  const { isConnected, uri, queryTimeoutMs, writeDeadlineMs, onAnswer } = options;
  function connected() {
    if (!isConnected()) throw new DatabaseUnavailableError('not-connected', 'the database is not connected');
  }
  const unavailable = (error: unknown, deadline: Deadline) => asUnavailable(error, uri, deadline);
  const bounds = (): Bounds => ({ maxTimeMS: queryTimeoutMs, signal: AbortSignal.timeout(queryTimeoutMs) });
  return {
    bounds,
    async query(call) {
      connected();
      const request = bounds();
      try {
        const answer = await call(request);
        onAnswer?.();
        return answer;
      } catch (error) {
        const missed = `the database did not answer within ${queryTimeoutMs} ms`;
        throw unavailable(error, { signal: request.signal, missed });
      }
    },
    async write(what, call) {
      connected();
      const { signal, clear } = clearableDeadline(writeDeadlineMs);
      const deadline = { signal, missed: `the database did not acknowledge the ${what} within ${writeDeadlineMs} ms` };
      try {
        const answer = await call(deadline);
        onAnswer?.();
        return answer;
      } catch (error) {
        throw unavailable(error, deadline);
      } finally {
        clear();
      }
    },
  };
}

/** A one-line DatabaseUnavailableError for whatever the driver threw during the request with `deadline`. */
export function asUnavailable(error: unknown, uri: string, deadline: Deadline): DatabaseUnavailableError {
  if (error instanceof DatabaseUnavailableError) return error;
  const { message, code } = error as { message?: string; code?: unknown };
  // An abort surfaces as whatever the driver was doing then ("Timed out during socket read", say).
  const timedOut = deadline.signal.aborted || code === 50; // 50: MaxTimeMSExpired
  const reason = timedOut ? deadline.missed : scrubSecrets(String(message ?? error), uri).split('\n')[0]!;
  return new DatabaseUnavailableError(timedOut ? 'timeout' : 'failed', reason, { cause: error });
}
