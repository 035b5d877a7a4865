// A client that hammers one or more URLs over keep-alive connections and records every answer or socket error.
import { Agent, get } from 'node:http';
import { waitFor } from '../../support/deadline.ts';

export interface Sample {
  path: string;
  /** performance.now() when the request was written and when its body had fully arrived (or it failed). */
  sent: number;
  received: number;
  /** HTTP status, or 0 when the request failed. */
  status: number;
  /** The socket error's code (ECONNRESET, ECONNREFUSED, timeout …) when status is 0. */
  error?: string;
}

export interface Hammer {
  samples: Sample[];
  /** The latest sample for `path` (any path when omitted). */
  last(path?: string): Sample | undefined;
  /** Waits (with a deadline) for an answer with `status` to a request sent at or after `since`. */
  until(status: number, options: { since: number; timeout: number; what: string; path?: string }): Promise<Sample>;
  /** Stops every loop once its request in flight has finished; resolves with all samples. */
  stop(): Promise<Sample[]>;
}

export interface HammerOptions {
  /** Concurrent request loops, each on its own keep-alive connection; loop i requests paths[i % paths.length]. */
  concurrency?: number;
  /** A request that has not completed by then is destroyed and recorded as error `timeout`. */
  timeoutMs?: number;
  /** Sent with every request (a read token). */
  headers?: Record<string, string>;
}

export function startHammer(
  baseUrl: string,
  paths: string[],
  { concurrency = 8, timeoutMs = 5000, headers = {} }: HammerOptions = {},
): Hammer {
  const { hostname, port } = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const samples: Sample[] = [];
  const latest = new Map<string, Sample>();
  let running = true;

  const once = (path: string) =>
    new Promise<Sample>((resolve) => {
      const sent = performance.now();
      const fail = (error: NodeJS.ErrnoException) =>
        resolve({ path, sent, received: performance.now(), status: 0, error: error.code ?? error.message });
      const req = get({ hostname, port, path, agent, headers }, (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve({ path, sent, received: performance.now(), status: res.statusCode ?? 0 }));
        res.on('error', fail);
      });
      req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
      req.on('error', fail);
    });

  const loops = Array.from({ length: concurrency }, async (_, i) => {
    const path = paths[i % paths.length]!;
    while (running) {
      const sample = await once(path);
      samples.push(sample);
      latest.set(path, sample);
      latest.set('', sample);
      // After a failure (the server gone for good, say) pause a little instead of spinning.
      if (sample.status === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });

  return {
    samples,
    last: (path = '') => latest.get(path),
    until(status, { since, timeout, what, path = '' }) {
      return waitFor(
        () => {
          const sample = latest.get(path);
          return sample !== undefined && sample.sent >= since && sample.status === status ? sample : undefined;
        },
        { timeout, interval: 5, what },
      );
    },
    async stop() {
      running = false;
      await Promise.all(loops);
      agent.destroy();
      return samples;
    },
  };
}
