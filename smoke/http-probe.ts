// One attempt of a HEALTH or READY probe: GET the endpoint under the service's base URL and judge the answer.
import { httpGet, ProbeFailure } from '../lib/http-get.ts';
import { judgeHealth, judgeReady } from './judge.ts';

export interface Attempt {
  ok: boolean;
  ms: number;
  reasons: string[];
}

const PATHS = { HEALTH: 'api/health', READY: 'api/ready' } as const;

/** `http://host/prefix` + HEALTH → `http://host/prefix/api/health`, so services behind a path prefix work too. */
export function endpointUrl(base: string, kind: 'HEALTH' | 'READY'): string {
  const url = new URL(base);
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  url.search = '';
  url.hash = '';
  return new URL(PATHS[kind], url).href;
}

export async function httpProbe(kind: 'HEALTH' | 'READY', url: string, timeout: number): Promise<Attempt> {
  const started = performance.now();
  let reasons: string[];
  try {
    const res = await httpGet(url, { timeout });
    reasons = kind === 'HEALTH' ? judgeHealth(res) : judgeReady(res);
  } catch (error) {
    if (!(error instanceof ProbeFailure)) throw error;
    reasons = [error.message];
  }
  return { ok: reasons.length === 0, ms: Math.round(performance.now() - started), reasons };
}
