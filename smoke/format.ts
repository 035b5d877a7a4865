// The exact output lines a validator parses: one per probe, reasons indented under it, and the final verdict.
import type { Colors } from './color.ts';
import type { ProbeResult, SmokeSummary } from './types.ts';

const INDENT = '    ';

/** `[HEALTH] backend ... PASS (12ms)`; the LOAD line ends with ` screenshot=<file>`. */
export function probeLine(r: ProbeResult, c: Colors): string {
  const verdict = r.ok ? c.green('PASS') : c.red('FAIL');
  const shot = r.kind === 'LOAD' ? ` screenshot=${r.screenshot ?? 'none'}` : '';
  return `[${r.kind}] ${r.target} ... ${verdict} (${r.ms}ms)${shot}`;
}

/** Why it failed, then (LOAD) what went wrong on the page; indented so probe lines keep their exact form. */
export function detailLines(r: ProbeResult, c: Colors): string[] {
  const lines = r.ok ? [] : [...r.reasons];
  if (!r.ok && r.attempts > 1) lines.push(`gave up after ${r.attempts} attempts`);
  for (const issue of r.issues ?? []) lines.push(issue);
  return lines.map((line) => c.dim(INDENT + line));
}

export function finalLine(s: Pick<SmokeSummary, 'ok' | 'passed' | 'failed' | 'total'>, c: Colors): string {
  return s.ok
    ? `smoke: ${c.green('PASS')} (${s.passed}/${s.total})`
    : `smoke: ${c.red('FAIL')} (${s.failed}/${s.total} failed)`;
}
