// The exact output lines a validator parses: one per probe, reasons indented under it, and the final verdict.
// Text a server chose reaches a line only through terminalText(), so it can never start a line of its own.
import type { Colors } from './color.ts';
import { isFlaky } from './result.ts';
import { terminalText } from './terminal-text.ts';
import type { ProbeResult, SmokeSummary } from './types.ts';

const INDENT = '    ';

/**
 * `[HEALTH] backend ... PASS (12ms)`; a pass that needed retries goes on ` after 3 attempts`, so the line still
 * starts with its contract form; the LOAD line ends with ` screenshot=<file>`.
 */
export function probeLine(r: ProbeResult, c: Colors): string {
  const verdict = r.ok ? c.green('PASS') : c.red('FAIL');
  const retried = isFlaky(r) ? ` after ${r.attempts} attempts` : '';
  const shot = r.kind === 'LOAD' ? ` screenshot=${terminalText(r.screenshot ?? 'none')}` : '';
  return `[${r.kind}] ${r.target} ... ${verdict} (${r.ms}ms)${retried}${shot}`;
}

/**
 * Why it failed, then (LOAD) what went wrong on the page; indented so probe lines keep their exact form. Reasons
 * and page issues quote servers (check names and values, reason phrases, bodies, console messages): escaped.
 */
export function detailLines(r: ProbeResult, c: Colors): string[] {
  const lines = r.ok ? [] : r.reasons.map(terminalText);
  if (!r.ok && r.attempts > 1) lines.push(`gave up after ${r.attempts} attempts`);
  if (isFlaky(r)) lines.push(retryLine(r));
  for (const issue of r.issues ?? []) lines.push(terminalText(issue));
  return lines.map((line) => c.dim(INDENT + line));
}

/** What a flaky pass's last failed attempt said: `attempt 2 failed: HTTP 503 Service Unavailable`. */
export const retryLine = (r: ProbeResult) =>
  `attempt ${r.attempts - 1} failed: ${terminalText((r.earlierFailure ?? []).join('; ') || 'no reason given')}`;

/**
 * A stack trace as stderr lines: the message may quote a server, so any line of it that would start at the left
 * edge after the first is indented like the frames are (each line is escaped where it is written, cli.ts).
 */
export const stackLines = (stack: string): string[] =>
  stack.split('\n').map((line, i) => (i === 0 || /^\s/.test(line) ? line : INDENT + line));

export function finalLine(s: Pick<SmokeSummary, 'ok' | 'passed' | 'failed' | 'total'>, c: Colors): string {
  return s.ok
    ? `smoke: ${c.green('PASS')} (${s.passed}/${s.total})`
    : `smoke: ${c.red('FAIL')} (${s.failed}/${s.total} failed)`;
}
