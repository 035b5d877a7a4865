// Every wait in a test goes through here, so a broken test fails fast instead of hanging CI.

export class DeadlineError extends Error {}

/** Resolves with `promise`, or rejects after `ms` with a message naming what was awaited. */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(`${what}: no result within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Polls `probe` every `interval` ms until it returns a truthy value, and returns that value.
 * Throws after `timeout` ms, quoting the last value or error seen, so a failure says what it saw.
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  { timeout = 5000, interval = 20, what = 'condition' }: { timeout?: number; interval?: number; what?: string } = {},
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
  throw new DeadlineError(`${what}: not met within ${timeout} ms (last: ${JSON.stringify(last)})`);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
