// Test helper: polls a service's /api/ready every few ms and records each change, so a test sees every state it passed.
import { sleep, waitFor } from './deadline.ts';

export interface Observation {
  /** Date.now() when this state was first seen (the clock pino's `time` uses, so log times compare). */
  at: number;
  status: number;
  checks: Record<string, string>;
}

export interface ReadinessWatch {
  /** Each distinct (status, checks) seen, in order. */
  history: Observation[];
  latest(): Observation | undefined;
  /** The first observation at or after `since` that satisfies `test`; throws after `timeout` ms. */
  until(
    test: (o: Observation) => boolean,
    options: { since: number; timeout: number; what: string },
  ): Promise<Observation>;
  stop(): Promise<void>;
}

export function watchReadiness(baseUrl: string, intervalMs = 10): ReadinessWatch {
  const history: Observation[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const res = await fetch(`${baseUrl}/api/ready`, { signal: AbortSignal.timeout(1000) });
        const body = (await res.json()) as { checks: Record<string, string> };
        const last = history.at(-1);
        if (!last || last.status !== res.status || JSON.stringify(last.checks) !== JSON.stringify(body.checks)) {
          history.push({ at: Date.now(), status: res.status, checks: body.checks });
        }
      } catch {
        // The service may be starting or gone; the caller's deadline decides what that means.
      }
      await sleep(intervalMs);
    }
  })();

  return {
    history,
    latest: () => history.at(-1),
    async until(test, { since, timeout, what }) {
      try {
        return await waitFor(() => history.find((o) => o.at >= since && test(o)), { timeout, interval: 5, what });
      } catch (error) {
        throw new Error(`${(error as Error).message}; last state seen: ${JSON.stringify(history.at(-1))}`);
      }
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}
