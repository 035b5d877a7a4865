// Times how long a readiness endpoint takes to answer a given status, polling every 10 ms.
import { waitFor } from '../support/deadline.ts';

export async function msUntilStatus(url: string, code: number, limitMs: number): Promise<number> {
  const start = performance.now();
  await waitFor(
    async () => {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      return res.status === code;
    },
    { timeout: limitMs, interval: 10, what: `${url} to answer ${code}` },
  );
  return performance.now() - start;
}

/** "45 ms" below 10 s, "12.3 s" above. */
export const ms = (n: number) => (n < 10_000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(1)} s`);
