// One GET for a JSON document (the backend's device list) that never throws: the parsed answer, or why there is none.
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
  /** Sent with the GET (the backend read token's Authorization). */
  headers?: Record<string, string>;
}

/** The timeout bounds everything, the body included (lib/http-get.ts); a failure is its one-line reason. */
export async function probe(url: string, timeoutMs: number, options: ProbeOptions = {}): Promise<ProbeResult> {
  const got = await httpGet(url, { timeout: timeoutMs, ...options });
  if (!got.reached) return { reached: false, error: got.reason, ms: got.ms };
  return { reached: true, status: got.status, body: parseJson(got.body), ms: got.ms };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
