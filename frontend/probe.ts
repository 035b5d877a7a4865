// One GET with a hard timeout that never throws: either the service's answer, or why it could not be reached.
import { httpGet } from '../lib/http-get.ts';

export type ProbeResult =
  | {
      reached: true;
      status: number;
      /** Parsed JSON, or undefined when the body is not JSON. */ body: unknown;
      ms: number;
    }
  | { reached: false; error: string; ms: number };

export interface ProbeOptions {
  /** A body past this many bytes is a failure, never buffered; unset: lib/http-get.ts's cap for health bodies. */
  maxBytes?: number;
}

/**
 * The timeout bounds everything, the body included: a service that stalls mid-body or streams without end
 * costs one timeout (or the body cap) and shows as unreachable, with the smoke's one-line reason.
 */
export async function probe(url: string, timeoutMs: number, { maxBytes }: ProbeOptions = {}): Promise<ProbeResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const res = await httpGet(url, { timeout: timeoutMs, maxBytes });
    return { reached: true, status: res.status, body: parseJson(res.body), ms: ms() };
  } catch (error) {
    // httpGet's failures are one-line reasons; anything else (a URL it cannot use) is named by its message.
    return { reached: false, error: error instanceof Error ? error.message : String(error), ms: ms() };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
