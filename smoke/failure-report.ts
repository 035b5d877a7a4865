// A failed run explained for people in one file, smoke-report.md beside the screenshot: for each failed probe its
// reason, the readiness checks, the body received and the screenshot, so nobody has to collect them by hand.
import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { REPORT_NAME } from './artifacts.ts';
import { finalLine } from './format.ts';
import { createColors } from './color.ts';
import { describeFsError } from './fs-error.ts';
import type { ProbeResult, SmokeSummary } from './types.ts';

const plain = createColors(false);

/** The report's markdown; `summary` has its URLs redacted already (reports.ts). */
export function failureReport(summary: SmokeSummary): string {
  const shot = summary.probes.find((p) => p.kind === 'LOAD')?.screenshot;
  const failed = summary.probes.filter((p) => !p.ok);
  return [
    `# ${finalLine(summary, plain)}`,
    '',
    `Started ${summary.startedAt}, ${summary.ms} ms. ` +
      (shot ? `Screenshot: \`${basename(shot)}\`, beside this report.` : 'No screenshot was written.'),
    '',
    ...failed.flatMap(probeSection),
  ].join('\n');
}

function probeSection(p: ProbeResult): string[] {
  const checks = Object.entries(p.checks ?? {});
  return [
    `## [${p.kind}] ${p.target}: FAIL`,
    '',
    `- URL: ${p.url}`,
    `- Reason: ${p.reasons.join('; ') || 'none given'}${p.attempts > 1 ? ` (after ${p.attempts} attempts)` : ''}`,
    ...(p.kind === 'READY'
      ? [`- Checks: ${checks.length ? checks.map(([k, v]) => `${k} = ${v}`).join(', ') : 'none could be read'}`]
      : []),
    ...(p.body !== undefined ? ['- Body:', '', fenced(p.body)] : []),
    ...(p.screenshot !== undefined ? [`- Screenshot: \`${p.screenshot ? basename(p.screenshot) : 'none'}\``] : []),
    ...(p.issues?.length ? ['- Page issues:', ...p.issues.map((issue) => `  - ${issue}`)] : []),
    '',
  ];
}

/** A code block no body can close early: its fence is longer than any run of backticks in it. */
export function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text}\n${fence}\n`;
}

/** Writes the report into the artifacts directory; its path, or why it could not be written. */
export async function writeFailureReport(
  summary: SmokeSummary,
  artifacts: string,
): Promise<{ path: string } | { problem: string }> {
  const path = join(artifacts, REPORT_NAME);
  try {
    await writeFile(path, failureReport(summary));
    return { path };
  } catch (error) {
    return { problem: `cannot write ${path}: ${describeFsError(error)}` };
  }
}
