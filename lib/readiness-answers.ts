// Every form of a readiness answer (default JSON, `?verbose` text, application/health+json), for the whole service
// and for each check, built once per readiness change: a probe only picks one and stamps the time.
import type { CheckDetail, ReadinessSnapshot } from './readiness.ts';

export interface ReadinessAnswer {
  code: 200 | 503;
  status: ReadinessSnapshot['status'];
  /** The default JSON body after its timestamp: `,"checks":{…},"details":{…}}`. */
  jsonTail: string;
  /** `[+]database ok: connected since …` lines, then the verdict line. */
  verbose: string;
  /** The IETF health-check draft's body (draft-inadarei-api-health-check-06). */
  healthJson: string;
}

export interface ReadinessAnswers {
  whole: ReadinessAnswer;
  /** One answer per check, for `/api/ready/<check>`: that check alone decides its status. */
  checks: ReadonlyMap<string, ReadinessAnswer>;
}

export function readinessAnswers(snapshot: ReadinessSnapshot, releaseId?: string): ReadinessAnswers {
  const names = Object.keys(snapshot.checks);
  const checks = new Map(
    names.map((name) => {
      const status = snapshot.details[name]!.ok ? 'ready' : 'not_ready';
      return [name, answer(snapshot, [name], status, releaseId)] as const;
    }),
  );
  return { whole: answer(snapshot, names, snapshot.status, releaseId), checks };
}

function answer(
  snapshot: ReadinessSnapshot,
  names: string[],
  status: ReadinessSnapshot['status'],
  releaseId: string | undefined,
): ReadinessAnswer {
  const pick = <T>(from: Readonly<Record<string, T>>) => Object.fromEntries(names.map((name) => [name, from[name]!]));
  const checks = pick(snapshot.checks);
  const details = pick(snapshot.details);
  return {
    code: status === 'ready' ? 200 : 503,
    status,
    jsonTail: `,"checks":${JSON.stringify(checks)},"details":${JSON.stringify(details)}}`,
    verbose: verboseText(checks, details, status),
    healthJson: healthJson(checks, details, status, releaseId),
  };
}

/** Kubernetes' `/readyz?verbose` lines, with the state, since when and why. */
function verboseText(checks: Record<string, string>, details: Record<string, CheckDetail>, status: string): string {
  const lines = Object.entries(checks).map(([name, state]) => {
    const { ok, since, reason } = details[name]!;
    return `[${ok ? '+' : '-'}]${name} ${ok ? 'ok' : 'failed'}: ${state} since ${since}${reason ? `: ${reason}` : ''}`;
  });
  lines.push(status === 'ready' ? 'readiness check passed' : `readiness check failed: ${status}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The draft's shape: `status` pass or fail (no state here is "healthy with concerns", so never warn), the release as
 * `releaseId`, and per check one component whose `observedValue` is its state and whose `time` is when it entered it
 * (states are pushed, so that is when it was last observed to change).
 */
function healthJson(
  checks: Record<string, string>,
  details: Record<string, CheckDetail>,
  status: ReadinessSnapshot['status'],
  releaseId: string | undefined,
): string {
  const components = Object.fromEntries(
    Object.entries(checks).map(([name, state]) => {
      const { ok, since, reason } = details[name]!;
      const component = {
        componentType: 'component',
        observedValue: state,
        status: ok ? 'pass' : 'fail',
        time: since,
        ...(reason ? { output: reason } : {}),
      };
      return [name, [component]];
    }),
  );
  return JSON.stringify({
    status: status === 'ready' ? 'pass' : 'fail',
    ...(releaseId === undefined ? {} : { releaseId }),
    ...(status === 'shutting_down' ? { output: 'shutting down' } : {}),
    checks: components,
  });
}
