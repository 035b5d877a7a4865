// One attempt of a HEALTH or READY probe: GET the endpoint and judge the answer, both through lib/ (as the frontend).
import { endpointUrl } from '../lib/endpoint-url.ts';
import { judgeLiveness, judgeReadiness, REQUIRED_CHECKS } from '../lib/health-judge.ts';
import { httpGet } from '../lib/http-get.ts';

export interface Attempt {
  ok: boolean;
  ms: number;
  reasons: string[];
  /** READY: the readiness body's checks, when the body could be read. */
  checks?: Record<string, string>;
  /** READY, with `checks`: those the service judges not fine. */
  failing?: string[];
  /** HEALTH, when the body could be read: the release that answered (null: none reported). */
  version?: string | null;
  /** A failed attempt's body, its start on one line, for the failure report. */
  body?: string;
}

const PATHS = { HEALTH: 'api/health', READY: 'api/ready' } as const;
// Enough of a health body to show its fields; the reasons already quote the start of anything else.
const BODY_EXCERPT = 400;

/** The endpoint of a probe under the service's base URL (a path prefix is kept). */
export const probeUrl = (base: string, kind: 'HEALTH' | 'READY') => endpointUrl(base, PATHS[kind]);

/**
 * READY also holds the body to the checks `service` always reports, so a probe of the wrong service fails; HEALTH
 * holds it to `expectVersion` when given, so an old release still answering fails.
 */
export async function httpProbe(
  kind: 'HEALTH' | 'READY',
  service: keyof typeof REQUIRED_CHECKS,
  url: string,
  timeout: number,
  expectVersion: string | null = null,
  ca: string | null = null,
): Promise<Attempt> {
  const got = await httpGet(url, { timeout, ...(ca ? { ca } : {}) });
  if (!got.reached) return { ok: false, ms: got.ms, reasons: [got.reason] };
  const judged =
    kind === 'HEALTH'
      ? judgeLiveness(got, expectVersion === null ? {} : { expectVersion })
      : judgeReadiness(got, REQUIRED_CHECKS[service]);
  // A live answer from another release still fails HEALTH: the deploy asked for did not answer.
  const reasons = 'release' in judged && judged.release !== null ? [...judged.reasons, judged.release] : judged.reasons;
  const found =
    'checks' in judged
      ? Object.keys(judged.checks).length > 0
        ? { checks: judged.checks, failing: Object.keys(judged.judged).filter((name) => !judged.judged[name]!.ok) }
        : {}
      : judged.body === undefined
        ? {}
        : { version: judged.version };
  const body = reasons.length > 0 && got.body.trim() ? { body: excerpt(got.body) } : {};
  return { ok: reasons.length === 0, ms: got.ms, reasons, ...found, ...body };
}

const excerpt = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > BODY_EXCERPT ? `${flat.slice(0, BODY_EXCERPT)}…` : flat;
};
