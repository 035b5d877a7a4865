// One GET with a hard timeout that never throws: either the service's answer, or why it could not be reached.

export type ProbeResult =
  | {
      reached: true;
      status: number;
      /** Parsed JSON, or undefined when the body is not JSON. */ body: unknown;
      ms: number;
    }
  | { reached: false; error: string; ms: number };

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/** Errors whose `cause.code` has a plainer name for a status page. */
const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  UND_ERR_SOCKET: 'connection closed before an answer',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS lookup failed)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

export async function probe(url: string, timeoutMs: number, fetchImpl: Fetch = fetch): Promise<ProbeResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    // The signal also bounds reading the body, so a service that sends headers and then stalls cannot hang us.
    const res = await fetchImpl(url, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json' },
      redirect: 'error',
    });
    const text = await res.text();
    return { reached: true, status: res.status, body: parseJson(text), ms: ms() };
  } catch (error) {
    return { reached: false, error: describeError(error, timeoutMs), ms: ms() };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function describeError(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  // undici refuses ports on the fetch spec's blocked list (e.g. 6000) and says only "bad port".
  if (e?.cause?.message === 'bad port') return 'port is on the fetch blocked-port list: use another port';
  const code = e?.cause?.code;
  if (code && NETWORK_ERRORS[code]) return NETWORK_ERRORS[code];
  return e?.cause?.message ?? e?.message ?? String(error);
}
