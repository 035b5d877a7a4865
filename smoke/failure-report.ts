// A failed run explained for people in one file, smoke-report.md beside the screenshot: for each failed probe its
// reason, the readiness checks, the body received and the screenshot, so nobody has to collect them by hand.
import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { REPORT_NAME } from './artifacts.ts';
import { finalLine } from './format.ts';
import { isFlaky } from './result.ts';
import { createColors } from './color.ts';
import { describeFsError } from './fs-error.ts';
import { markdownBlock, markdownCode } from './markdown-text.ts';
import type { ProbeResult, SmokeSummary } from './types.ts';

const plain = createColors(false);

/**
 * The report's markdown; `summary` has its URLs redacted already (reports.ts). Every text a server could have
 * chosen (reasons, checks, body, page issues; the URL too) is in code (markdown-text.ts): it is shown, never read as
 * markdown or HTML.
 */
export function failureReport(summary: SmokeSummary): string {
  const shot = summary.probes.find((p) => p.kind === 'LOAD')?.screenshot;
  const failed = summary.probes.filter((p) => !p.ok);
  const flaky = summary.probes.filter(isFlaky);
  return [
    `# ${finalLine(summary, plain)}`,
    '',
    `Started ${summary.startedAt}, ${summary.ms} ms. ` +
      (shot ? `Screenshot: \`${basename(shot)}\`, beside this report.` : 'No screenshot was written.'),
    '',
    ...failed.flatMap(probeSection),
    ...flaky.flatMap(flakySection),
  ].join('\n');
}

function probeSection(p: ProbeResult): string[] {
  const checks = Object.entries(p.checks ?? {});
  const reason = p.reasons.length ? markdownCode(p.reasons.join('; ')) : 'none given';
  const shown = checks.length ? checks.map(([k, v]) => markdownCode(`${k} = ${v}`)).join(', ') : 'none could be read';
  return [
    `## [${p.kind}] ${p.target}: FAIL`,
    '',
    `- URL: ${markdownCode(p.url)}`,
    `- Reason: ${reason}${p.attempts > 1 ? ` (after ${p.attempts} attempts)` : ''}`,
    ...(p.kind === 'READY' ? [`- Checks: ${shown}`] : []),
    ...(p.body !== undefined ? ['- Body:', '', markdownBlock(p.body)] : []),
    ...(p.screenshot !== undefined ? [`- Screenshot: \`${p.screenshot ? basename(p.screenshot) : 'none'}\``] : []),
    ...(p.issues?.length ? ['- Page issues:', ...p.issues.map((issue) => `  - ${markdownCode(issue)}`)] : []),
    '',
  ];
}

/** A probe that passed only after a retry: what its last failed attempt said. */
const flakySection = (p: ProbeResult) => [
  `## [${p.kind}] ${p.target}: PASS after ${p.attempts} attempts`,
  '',
  `- URL: ${markdownCode(p.url)}`,
  `- Attempt ${p.attempts - 1} failed: ${markdownCode((p.earlierFailure ?? []).join('; ') || 'no reason given')}`,
  '',
];

/** A code block no text can close early (markdown-text.ts); the trailer's report of the containers uses it too. */
export const fenced = markdownBlock;

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
