// Runs every probe at once (Chromium starts while the HTTP probes run); prints their lines in the contract's order.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser } from 'puppeteer-core';
import { detailLines, finalLine, probeLine, stackLines } from './format.ts';
import { httpProbe, probeUrl } from './http-probe.ts';
import { loadProbe } from './load-probe.ts';
import { noticeIfSlow } from './wait-notice.ts';
import type { Colors } from './color.ts';
import type { Kind, ProbeResult, SmokeConfig, SmokeSummary, Target } from './types.ts';

export interface SmokeIo {
  out(line: string): void;
  /** One line of stderr; the CLI escapes any control character in it (terminal-text.ts), so pass one line a call. */
  err(line: string): void;
  colors: Colors;
}

interface Planned {
  kind: Kind;
  target: Target;
  url: string;
}

/** The steps in the contract's order: backend, then the device service when given, then the frontend. */
export function planProbes(config: Pick<SmokeConfig, 'backend' | 'device' | 'frontend'>): Planned[] {
  const http = (target: Target, base: string): Planned[] =>
    (['HEALTH', 'READY'] as const).map((kind) => ({ kind, target, url: probeUrl(base, kind) }));
  return [
    ...http('backend', config.backend),
    ...(config.device ? http('device', config.device) : []),
    { kind: 'LOAD', target: 'frontend', url: config.frontend },
  ];
}

export async function runSmoke(config: SmokeConfig, browser: Promise<Browser>, io: SmokeIo): Promise<SmokeSummary> {
  const started = Date.now();
  const until = started + config.wait;
  const running = planProbes(config).map(async ({ kind, target, url }): Promise<[ProbeResult, string?]> => {
    // A wait of over a second is said on stderr: Chromium's start and the page are the long ones.
    const waiting = <T>(work: Promise<T>, what: string) => noticeIfSlow(work, what, io.err);
    if (kind === 'LOAD') {
      const page = await waiting(browser, 'Chromium to start (the LOAD probe needs it)');
      const { timeout, artifacts, strict, operatorToken } = config;
      const options = { url, timeout, artifacts, strict, operatorToken };
      const loading = _retry(() => loadProbe(page, options), until);
      const { stack, ...last } = await waiting(loading, 'the page to load in Chromium ([LOAD] frontend)');
      return [{ kind, target, url, ...last }, stack];
    }
    const service = target as Exclude<Target, 'frontend'>; // planProbes gives the frontend its LOAD probe only
    const attempt = () =>
      httpProbe(kind, service, url, config.timeout, config.expectVersion ?? null, config.ca ?? null);
    const answer = `[${kind}] ${target} to answer${config.wait > 0 ? ' and pass (retried within --wait)' : ''}`;
    return [{ kind, target, url, ...(await waiting(_retry(attempt, until), answer)) }];
  });
  // Failures are awaited in order below; this only stops a later rejection being reported as unhandled.
  for (const p of running) p.catch(() => {});
  const probes: ProbeResult[] = [];
  for (const p of running) {
    const [result, stack] = await p;
    probes.push(result);
    io.out(probeLine(result, io.colors));
    for (const line of detailLines(result, io.colors)) io.out(line);
    // The contract puts an exception's stack trace on stderr (docs/contract.md#smoke-cli), keeping stdout parseable.
    for (const line of stack ? stackLines(stack) : []) io.err(line);
  }
  const failed = probes.filter((p) => !p.ok).length;
  return {
    ok: failed === 0,
    passed: probes.length - failed,
    failed,
    total: probes.length,
    ms: Date.now() - started,
    startedAt: new Date(started).toISOString(),
    probes,
    expectVersion: config.expectVersion ?? null,
  };
}

export const printFinal = (s: SmokeSummary, io: SmokeIo) => io.out(finalLine(s, io.colors));

/**
 * One attempt, then (with --wait) more until one passes or the deadline passes; the last attempt is reported, and
 * a pass after a failure keeps the reasons of the last failed attempt, so the retry stays on record.
 */
async function _retry<A extends { ok: boolean; reasons: string[] }>(
  attempt: () => Promise<A>,
  until: number,
): Promise<A & { attempts: number; earlierFailure?: string[] }> {
  let failed: string[] | undefined;
  for (let n = 1; ; n++) {
    const result = await attempt();
    const left = until - Date.now();
    if (result.ok) return { ...result, attempts: n, ...(failed ? { earlierFailure: failed } : {}) };
    if (left <= 0) return { ...result, attempts: n };
    failed = result.reasons;
    await sleep(Math.min(left, 250 * n, 1000));
  }
}
