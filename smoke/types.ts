// The shapes shared by the probes, the runner and the reports.

export type Kind = 'HEALTH' | 'READY' | 'LOAD';
export type Target = 'backend' | 'device' | 'frontend';

export interface ProbeResult {
  kind: Kind;
  target: Target;
  url: string;
  ok: boolean;
  /** Duration of the final attempt, in ms. */
  ms: number;
  /** Why the probe failed, one line each (empty when it passed). */
  reasons: string[];
  attempts: number;
  /** Passed only after a retry (--wait): the reasons of the last attempt that failed. */
  earlierFailure?: string[];
  /** LOAD only: the screenshot written for the final attempt, or null when none could be taken. */
  screenshot?: string | null;
  /** LOAD only: console errors, uncaught page exceptions and failed requests, one line each. */
  issues?: string[];
  /** READY only: the readiness body's checks (dependency → state), when the body could be read. */
  checks?: Record<string, string>;
  /** READY only: the checks that are not fine, as the service judges them (lib/health-judge.ts), with `checks`. */
  failing?: string[];
  /** HEALTH only: the release that answered (the body's `version`); null when it reported none. */
  version?: string | null;
  /** HEALTH and READY, when they failed: the start of the body received, on one line. */
  body?: string;
}

export interface SmokeConfig {
  frontend: string;
  backend: string;
  device: string | null;
  /** --expect-version: the release HEALTH requires of the backend and the device service; null: any. */
  expectVersion: string | null;
  artifacts: string;
  timeout: number;
  /** Keep retrying failing probes until this many ms after the start (0: one attempt each). */
  wait: number;
  json: string | null;
  junit: string | null;
  strict: boolean;
  /** From --operator-token-file: the LOAD probe signs in as an operator first; never printed. */
  operatorToken: string | null;
  chromePath: string;
  /** How the user turned Chromium's sandbox off (`--no-sandbox` or `SMOKE_NO_SANDBOX=1`); null keeps it on. */
  noSandbox: string | null;
  /** From --ca-file: the one CA (PEM) trusted for https:// probes and the page; null: the system's store. */
  ca?: string | null;
}

export interface SmokeSummary {
  ok: boolean;
  passed: number;
  failed: number;
  total: number;
  ms: number;
  startedAt: string;
  probes: ProbeResult[];
  /** The release HEALTH required (SmokeConfig's expectVersion); unset or null: any. */
  expectVersion?: string | null;
}

export type SmokeVerdict = 'PASS' | 'FAIL';

/** One probe as `--json` writes it (smoke/result.ts): its verdict as a word, and its reasons also as one line. */
export type ProbeRecord = Omit<ProbeResult, 'ok' | 'checks' | 'failing' | 'version' | 'body'> & {
  result: SmokeVerdict;
  /** The reasons joined with `; `; null when it passed. */
  reason: string | null;
  /** READY only: the readiness body's checks; null when none could be read. */
  checks?: Record<string, string> | null;
  /** READY only: the names of `checks` the service judges not fine; null when no checks could be read. */
  failing?: string[] | null;
  /** HEALTH only: the release that answered; null when it reported none or nothing could be read. */
  version?: string | null;
  /** HEALTH and READY only: the body excerpt of a failed probe; null when it passed or nothing was received. */
  body?: string | null;
  /** Passed, but only after one or more failed attempts (`--wait` retried it): a PASS that was not clean. */
  flaky: boolean;
  /** Of a flaky probe: the reasons of its last failed attempt, joined with `; `; null otherwise. */
  flakyReason: string | null;
};

/**
 * The smoke's result: exactly what `--json` writes, and the one shape the tools that run the smoke (the commit
 * trailer, through the local stack too) read, through smoke/result.ts. Never the lines printed for people.
 */
export type SmokeResult = Omit<SmokeSummary, 'ok' | 'probes' | 'expectVersion'> & {
  result: SmokeVerdict;
  /** The release HEALTH required (--expect-version); null when any would do. Absent in results of older smokes. */
  expectVersion?: string | null;
  probes: ProbeRecord[];
  /** How many probes passed only after a retry (each one `flaky`); `passed` counts them too. */
  flaky: number;
  /** The failure report (smoke-report.md beside the screenshots) a failed run wrote; null otherwise. */
  report: string | null;
};
