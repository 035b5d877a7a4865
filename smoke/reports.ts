// The run as files: --json, --junit, a markdown table for the GitHub step summary, and on a failure the report for
// people (failure-report.ts) that the other three point to.
import { appendFile, mkdir, open, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { answerWithin, gaveNoAnswer } from './fs-answer.ts';
import { describeFsError } from './fs-error.ts';
import { CLIError } from '../tools/cli-error.ts';
import { redactUrl, redactUrlsIn } from '../lib/redact-url.ts';
import { writeFailureReport } from './failure-report.ts';
import { markdownCode } from './markdown-text.ts';
import { terminalText } from './terminal-text.ts';
import { retryLine } from './format.ts';
import { isFlaky, toSmokeResult } from './result.ts';
import type { ProbeResult, SmokeSummary } from './types.ts';

/**
 * The run as it may be written down: every URL, in `url`, the reasons and the page issues (a redirect's Location,
 * a request Chromium made), with `***` for its password and secret query values. CI uploads these files.
 */
function redacted(s: SmokeSummary): SmokeSummary {
  const probes = s.probes.map((p) => ({
    ...p,
    url: redactUrl(p.url),
    reasons: p.reasons.map(redactUrlsIn),
    ...(p.earlierFailure ? { earlierFailure: p.earlierFailure.map(redactUrlsIn) } : {}),
    ...(p.issues ? { issues: p.issues.map(redactUrlsIn) } : {}),
    ...(p.body !== undefined ? { body: redactUrlsIn(p.body) } : {}),
    ...(p.checks ? { checks: Object.fromEntries(Object.entries(p.checks).map(([k, v]) => [k, redactUrlsIn(v)])) } : {}),
  }));
  return { ...s, probes };
}
const reasonOf = (p: ProbeResult) => (p.reasons.length ? p.reasons.join('; ') : null);

/** The --json file: the SmokeResult other tools read (smoke/result.ts), URLs redacted. */
export const toJson = (summary: SmokeSummary, report: string | null = null) =>
  `${JSON.stringify(toSmokeResult(redacted(summary), report), null, 2)}\n`;

export function toJunit(summary: SmokeSummary): string {
  const s = redacted(summary);
  const cases = s.probes.map((p) => {
    const time = (p.ms / 1000).toFixed(3);
    const open = `  <testcase classname="smoke.${p.target}" name="${p.kind} ${p.target}" time="${time}"`;
    // A pass after a retry, as Surefire marks a test that passed on a rerun: its last failed attempt inside.
    if (isFlaky(p)) {
      const why = _xml((p.earlierFailure ?? []).join('; ') || 'failed');
      const trace = `<stackTrace>${_xml(retryLine(p))}\n${_xml(`url: ${p.url}`)}</stackTrace>`;
      return `${open}>\n    <flakyFailure message="${why}" type="smoke.retry">${trace}</flakyFailure>\n  </testcase>`;
    }
    if (p.ok) return `${open}/>`;
    const detail = [...p.reasons, ...(p.issues ?? []), `url: ${p.url}`].map(_xml).join('\n');
    return `${open}>\n    <failure message="${_xml(reasonOf(p) ?? 'failed')}">${detail}</failure>\n  </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="smoke" tests="${s.total}" failures="${s.failed}" errors="0" ` +
      `time="${(s.ms / 1000).toFixed(3)}" timestamp="${s.startedAt}">`,
    ...cases,
    '</testsuite>',
    '',
  ].join('\n');
}

export function toStepSummary(summary: SmokeSummary, report: string | null = null): string {
  const s = redacted(summary);
  const rows = s.probes.map((p) => {
    const said = [...(p.ok ? [] : p.reasons), ...(isFlaky(p) ? [retryLine(p)] : []), ...(p.issues ?? [])];
    const note = said.join('; ') || (p.screenshot ?? '');
    const result = p.ok ? (isFlaky(p) ? `⚠️ PASS after ${p.attempts} attempts` : '✅ PASS') : '❌ FAIL';
    return `| ${p.kind} | ${p.target} | ${result} | ${p.ms} | ${_cell(note)} |`;
  });
  const flaky = s.probes.filter(isFlaky).length;
  const head = s.ok ? `smoke: PASS (${s.passed}/${s.total})` : `smoke: FAIL (${s.failed}/${s.total} failed)`;
  return [
    `### ${head}`,
    '',
    '| probe | target | result | ms | details |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    ...(flaky ? [`${flaky} of ${s.total} probes passed only after a retry.`, ''] : []),
    ...(report ? [`Failure report: [${basename(report)}](${report}), beside the screenshot.`, ''] : []),
    '',
  ].join('\n');
}

/** Fails before any probe runs when --json or --junit cannot be written, rather than after the whole run. */
export async function checkReportPaths({ json, junit }: { json: string | null; junit: string | null }): Promise<void> {
  for (const [flag, file] of [
    ['--json', json],
    ['--junit', junit],
  ] as const) {
    if (!file) continue;
    const check = async () => {
      const existed = await stat(file).then(
        () => true,
        () => false,
      );
      await mkdir(dirname(file), { recursive: true });
      // A write of no bytes leaves the file as it is, yet is answered as the report's write would be: some files
      // open fine and refuse every write (EIO under /proc, ENOSPC on /dev/full).
      const handle = await open(file, 'a');
      await handle.write('').finally(() => handle.close());
      if (!existed) await rm(await realpath(file), { force: true }); // through a link, the file it made (not the link)
    };
    try {
      await answerWithin(check(), `${flag} ${file}`);
    } catch (error) {
      if (gaveNoAnswer(error)) throw error;
      throw new CLIError(`cannot write ${flag} ${file}: ${describeFsError(error)}`, { cause: error });
    }
  }
}

/**
 * Writes the files asked for, and on a failure the report beside the screenshots; a file asked for that cannot be
 * written is a run error (exit 2), the summary and the failure report only a warning.
 */
export async function writeReports(
  s: SmokeSummary,
  { json, junit, artifacts }: { json: string | null; junit: string | null; artifacts: string },
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void,
): Promise<void> {
  let report: string | null = null;
  if (!s.ok) {
    const written = await writeFailureReport(redacted(s), artifacts);
    if ('path' in written) report = written.path;
    else warn(`smoke: warning: ${written.problem}`);
  }
  for (const [flag, file, text] of [
    ['--json', json, (run: SmokeSummary) => toJson(run, report)],
    ['--junit', junit, toJunit],
  ] as const) {
    if (!file) continue;
    try {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text(s));
    } catch (error) {
      throw new CLIError(`cannot write ${flag} ${file}: ${describeFsError(error)}`, { cause: error });
    }
  }
  if (env.GITHUB_STEP_SUMMARY) {
    await appendFile(env.GITHUB_STEP_SUMMARY, toStepSummary(s, report)).catch((error: Error) => {
      warn(
        `smoke: warning: cannot append to GITHUB_STEP_SUMMARY ${env.GITHUB_STEP_SUMMARY}: ${describeFsError(error)}`,
      );
    });
  }
}

// XML 1.0 cannot carry most control characters, not even as character references: each is shown as its escape
// (terminal-text.ts), as on the terminal, before the markup characters become entities.
const _xml = (text: string) =>
  terminalText(text).replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[ch]!,
  );
/** A table cell: in code (markdown-text.ts), so no HTML, link or emphasis a server sent is read as such. */
const _cell = (text: string) => (text ? markdownCode(_clip(text.replace(/\s+/g, ' ')), { cell: true }) : '');
const _clip = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);
