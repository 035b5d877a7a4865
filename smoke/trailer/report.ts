// Reads what the smoke CLI reported (its --json file, else its printed lines) into counts and the first failure.

export interface ProbeOutcome {
  kind: string;
  target: string;
  passed: boolean;
  reason?: string;
}

export interface SmokeReport {
  probes: ProbeOutcome[];
  /** From the last line `smoke: PASS (n/n)` or `smoke: FAIL (k/n failed)`, when it was printed. */
  verdict?: { pass: boolean; failed: number; total: number };
}

const PROBE_LINE = /^\[(\w+)\]\s+(\S+)\s+\.\.\.\s+(PASS|FAIL)\b/;
const PASS_LINE = /^smoke: PASS \((\d+)\/(\d+)\)\s*$/;
const FAIL_LINE = /^smoke: FAIL \((\d+)\/(\d+) failed\)\s*$/;

/** Parses the smoke CLI's printed output; a failing probe's reasons are the indented lines below it. */
export function parseSmokeLines(text: string): SmokeReport {
  const report: SmokeReport = { probes: [] };
  let current: ProbeOutcome | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const probe = PROBE_LINE.exec(line);
    const pass = PASS_LINE.exec(line);
    const fail = FAIL_LINE.exec(line);
    if (probe) {
      current = { kind: probe[1]!, target: probe[2]!, passed: probe[3] === 'PASS' };
      report.probes.push(current);
    } else if (pass) {
      report.verdict = { pass: true, failed: 0, total: Number(pass[2]) };
      current = undefined;
    } else if (fail) {
      report.verdict = { pass: false, failed: Number(fail[1]), total: Number(fail[2]) };
      current = undefined;
    } else if (current && !current.passed && /^\s+\S/.test(line)) {
      current.reason = current.reason ? `${current.reason}; ${line.trim()}` : line.trim();
    } else if (!/^\s/.test(line)) {
      current = undefined;
    }
  }
  return report;
}

/** The probes from the smoke CLI's --json file: an array of probes, or an object with a `probes` array. */
export function parseSmokeJson(value: unknown): ProbeOutcome[] | undefined {
  const list = Array.isArray(value) ? value : (value as { probes?: unknown } | null)?.probes;
  if (!Array.isArray(list)) return undefined;
  return list.map((item: Record<string, unknown>) => {
    const result = String(item.result ?? (item.passed === true || item.ok === true ? 'PASS' : 'FAIL')).toUpperCase();
    const reason = item.reason ?? item.error;
    return {
      kind: String(item.kind ?? '?').toUpperCase(),
      target: String(item.target ?? '?'),
      passed: result === 'PASS',
      ...(reason ? { reason: String(reason) } : {}),
    };
  });
}

/** `[READY] backend: HTTP 503 ...`: the form a FAIL trailer uses. */
export function describeProbe(probe: ProbeOutcome): string {
  return `[${probe.kind}] ${probe.target}: ${probe.reason ?? 'failed (no reason given)'}`;
}

export const firstFailure = (probes: ProbeOutcome[]) => probes.find((probe) => !probe.passed);
