// One attempt of a HEALTH or READY probe: GET the endpoint and judge the answer, both through lib/ (as the frontend).
import { endpointUrl } from '../lib/endpoint-url.ts';
import { judgeLiveness, judgeReadiness, REQUIRED_CHECKS } from '../lib/health-judge.ts';
import { httpGet } from '../lib/http-get.ts';

export interface Attempt {
  ok: boolean;
  ms: number;
  reasons: string[];
}

const PATHS = { HEALTH: 'api/health', READY: 'api/ready' } as const;

/** The endpoint of a probe under the service's base URL (a path prefix is kept). */
export const probeUrl = (base: string, kind: 'HEALTH' | 'READY') => endpointUrl(base, PATHS[kind]);

/** READY also holds the body to the checks `service` always reports, so a probe of the wrong service fails. */
export async function httpProbe(
  kind: 'HEALTH' | 'READY',
  service: keyof typeof REQUIRED_CHECKS,
  url: string,
  timeout: number,
): Promise<Attempt> {
  const got = await httpGet(url, { timeout });
  const reasons = !got.reached
    ? [got.reason]
    : kind === 'HEALTH'
      ? judgeLiveness(got).reasons
      : judgeReadiness(got, REQUIRED_CHECKS[service]).reasons;
  return { ok: reasons.length === 0, ms: got.ms, reasons };
}
