// Asks one service for its liveness and readiness at the same time and says, in one record, how it is doing.
// The answers are judged by lib/health-judge.ts, as the smoke judges them: one verdict for one body.
import { asObject } from '../lib/json-object.ts';
import { endpointUrl } from '../lib/endpoint-url.ts';
import { judgeLiveness, judgeReadiness } from '../lib/health-judge.ts';
import { httpGet, type HttpResult } from '../lib/http-get.ts';
import { redactUrl, redactUrlsIn } from '../lib/redact-url.ts';
import type { DeviceBacklog, LivenessState, ReadinessState, ServiceStatus } from './status-document.ts';

/** `url` may end in a path (a service behind a prefix); the probe paths are appended to it. */
export async function checkService(
  name: ServiceStatus['name'],
  url: string,
  timeoutMs: number,
): Promise<ServiceStatus> {
  // The timeout bounds everything, the body included: a service that stalls mid-body or streams without end
  // costs one timeout (or the body cap) and shows as unreachable, with the smoke's one-line reason.
  const [health, ready] = await Promise.all([
    httpGet(endpointUrl(url, '/api/health'), { timeout: timeoutMs }),
    httpGet(endpointUrl(url, '/api/ready'), { timeout: timeoutMs }),
  ]);
  const live = readLiveness(health);
  const readiness = readReadiness(ready);
  const problems = [live.problem, readiness.problem].filter((p): p is string => p !== null);
  const sameCause = !health.reached && !ready.reached && health.reason === ready.reason;
  const problem = sameCause ? `unreachable: ${health.reason}` : problems.length ? problems.join('; ') : null;
  // The status document is public: the URL and an error that quotes it are shown without their credentials.
  return {
    name,
    url: redactUrl(url),
    liveness: live.state,
    readiness: readiness.state,
    checks: readiness.checks,
    details: readiness.details,
    version: live.version,
    uptime: live.uptime,
    environment: live.environment,
    database: live.database,
    backlog: live.backlog,
    problem: problem === null ? null : redactUrlsIn(problem),
    ms: Math.max(health.ms, ready.ms),
  };
}

function readLiveness(result: HttpResult) {
  const none = { uptime: null, environment: null, database: null, backlog: null, version: null };
  if (!result.reached) return { state: 'unreachable' as LivenessState, problem: `liveness: ${result.reason}`, ...none };
  const { live, reasons, body, version } = judgeLiveness(result);
  if (!live) return { state: 'failing' as LivenessState, problem: `liveness: ${reasons.join('; ')}`, ...none };
  const database = asObject(body?.database);
  return {
    state: 'ok' as LivenessState,
    problem: null,
    // A live answer has both, the judge checked: a finite number and a string.
    uptime: body?.uptime as number,
    environment: body?.environment as string,
    database:
      typeof database?.status === 'string' && typeof database.name === 'string'
        ? { status: database.status, name: database.name }
        : null,
    backlog: readBacklog(body?.readings),
    version,
  };
}

/** The device service's `readings` detail; without a whole `unacknowledged` count it is not shown at all. */
function readBacklog(value: unknown): DeviceBacklog | null {
  const readings = asObject(value);
  const count = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : null);
  const unacknowledged = count(readings?.unacknowledged);
  if (unacknowledged === null) return null;
  return { unacknowledged, spoolBytes: count(readings?.spoolBytes), dropped: count(readings?.dropped) };
}

function readReadiness(result: HttpResult) {
  if (!result.reached)
    return { state: 'unreachable' as ReadinessState, problem: `readiness: ${result.reason}`, checks: {}, details: {} };
  const { state, reasons, checks, judged: details } = judgeReadiness(result);
  if (state === 'ready') return { state, problem: null, checks, details };
  if (state === 'failing') return { state, problem: `readiness: ${reasons.join('; ')}`, checks: {}, details: {} };
  // Not ready, and saying why: every check is listed, the fine ones too, so the page shows the whole picture.
  const listed = Object.entries(checks)
    .map(([key, value]) => `${key}: ${value}`)
    .join(', ');
  return { state, problem: `${state.replace('_', ' ')}${listed ? ` (${listed})` : ''}`, checks, details };
}
