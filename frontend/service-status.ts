// Asks one service for its liveness and readiness at the same time and says, in one record, how it is doing.
import { asObject } from './as-object.ts';
import { redactUrl, redactUrlsIn } from '../lib/redact-url.ts';
import { probe, type ProbeResult } from './probe.ts';
import type { DeviceBacklog, LivenessState, ReadinessState, ServiceStatus } from './status-document.ts';

const READINESS_STATES = new Set(['ready', 'not_ready', 'shutting_down']);

/** `baseUrl` may end in a path (a service behind a prefix); the probe paths are appended to it. */
export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + path;
}

export async function checkService(
  name: ServiceStatus['name'],
  url: string,
  timeoutMs: number,
): Promise<ServiceStatus> {
  const [health, ready] = await Promise.all([
    probe(joinUrl(url, '/api/health'), timeoutMs),
    probe(joinUrl(url, '/api/ready'), timeoutMs),
  ]);
  const live = readLiveness(health);
  const readiness = readReadiness(ready);
  const problems = [live.problem, readiness.problem].filter((p): p is string => p !== null);
  const sameCause = !health.reached && !ready.reached && health.error === ready.error;
  const problem = sameCause ? `unreachable: ${health.error}` : problems.length ? problems.join('; ') : null;
  // The status document is public: the URL and an error that quotes it are shown without their credentials.
  return {
    name,
    url: redactUrl(url),
    liveness: live.state,
    readiness: readiness.state,
    checks: readiness.checks,
    uptime: live.uptime,
    environment: live.environment,
    database: live.database,
    backlog: live.backlog,
    problem: problem === null ? null : redactUrlsIn(problem),
    ms: Math.max(health.ms, ready.ms),
  };
}

function readLiveness(result: ProbeResult) {
  const none = { uptime: null, environment: null, database: null, backlog: null };
  if (!result.reached) return { state: 'unreachable' as LivenessState, problem: `liveness: ${result.error}`, ...none };
  const body = asObject(result.body);
  if (result.status !== 200 || body?.status !== 'ok') {
    const why = result.status !== 200 ? `HTTP ${result.status}` : 'HTTP 200 without status "ok"';
    return { state: 'failing' as LivenessState, problem: `liveness answered ${why}`, ...none };
  }
  const database = asObject(body.database);
  return {
    state: 'ok' as LivenessState,
    problem: null,
    uptime: typeof body.uptime === 'number' ? body.uptime : null,
    environment: typeof body.environment === 'string' ? body.environment : null,
    database:
      typeof database?.status === 'string' && typeof database.name === 'string'
        ? { status: database.status, name: database.name }
        : null,
    backlog: readBacklog(body.readings),
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

function readReadiness(result: ProbeResult) {
  if (!result.reached)
    return { state: 'unreachable' as ReadinessState, problem: `readiness: ${result.error}`, checks: {} };
  const body = asObject(result.body);
  const status = body?.status;
  // 200 must say ready and 503 must say something else; anything else is not a readiness answer.
  const consistent =
    typeof status === 'string' &&
    READINESS_STATES.has(status) &&
    (result.status === 200) === (status === 'ready') &&
    (result.status === 200 || result.status === 503);
  if (!consistent) {
    return {
      state: 'failing' as ReadinessState,
      problem: `readiness answered HTTP ${result.status} without a readiness body`,
      checks: {},
    };
  }
  const checks: Record<string, string> = {};
  for (const [key, value] of Object.entries(asObject(body?.checks) ?? {})) {
    if (typeof value === 'string') checks[key] = value;
  }
  const state = status as ReadinessState;
  const listed = Object.entries(checks)
    .map(([key, value]) => `${key}: ${value}`)
    .join(', ');
  const problem = state === 'ready' ? null : `${state.replace('_', ' ')}${listed ? ` (${listed})` : ''}`;
  return { state, problem, checks };
}
