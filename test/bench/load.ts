// Runs autocannon against a URL for a fixed time and returns requests/s and p99 latency.
import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  /** Responses received in the whole run. */
  requests: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export async function load(
  url: string,
  { seconds, connections = 50, ca }: { seconds: number; connections?: number; ca?: string },
): Promise<LoadResult> {
  // `ca`: trust a test CA for an https:// URL (keep-alive connections, so a handshake per connection only).
  const tls = ca ? { tlsOptions: { ca } } : {};
  const result = await autocannon({ url, duration: seconds, connections, pipelining: 1, ...tls } as autocannon.Options);
  return {
    rps: result.requests.average,
    requests: result.requests.total,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
