// Every wait in a test goes through here, so a broken test fails fast instead of hanging CI. The bound itself is the
// project's one withDeadline (lib/with-deadline.ts): resolves with `promise`, or rejects naming what was awaited.
import { setTimeout as sleepFor } from 'node:timers/promises';
import { withDeadline } from '../../lib/with-deadline.ts';

export { DeadlineError, withDeadline } from '../../lib/with-deadline.ts';

interface WaitOptions {
  timeout?: number;
  interval?: number;
  what?: string;
  /** What else a failure should show (the processes' last log lines), read only when the wait fails. */
  explain?: () => string;
}

/**
 * Polls `probe` every `interval` ms until it returns a truthy value, and returns that value.
 * Throws after `timeout` ms, quoting the last value or error seen, so a failure says what it saw.
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  { timeout = 5000, interval = 20, what = 'condition', explain }: WaitOptions = {},
): Promise<NonNullable<T>> {
  const start = Date.now();
  let last: unknown;
  while (Date.now() - start < timeout) {
    try {
      const value = await withDeadline(Promise.resolve(probe()), Math.max(1, timeout - (Date.now() - start)), what);
      if (value) return value as NonNullable<T>;
      last = value;
    } catch (error) {
      last = error instanceof Error ? error.message : error;
    }
    await sleep(interval);
  }
  const explained = explain ? `\n${explain()}` : '';
  throw new Error(`${what}: not met within ${timeout} ms (last: ${JSON.stringify(last)})${explained}`);
}

export const sleep = (ms: number) => sleepFor(ms);

/** The error `promise` rejects with; throws when it resolves instead (a test that expected a failure). */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}
