// What the runner prints: a line per file as it ends, then each failure whole, the slowest files, a repeat's tally,
// and last the totals line CI and the tools read (`N passed, N failed`). Pure: lines in, lines out.
import type { FileResult } from './verdict.ts';

const SLOWEST = 10;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
export const nameOf = (r: FileResult) => (r.run === undefined ? r.file : `${r.file} #${r.run}`);

/** `[ 37/201] ✔ lib/x.test.ts  12 passed  0.4 s`, with the failure's reason or a note after it. */
export function fileLine(r: FileResult, done: number, of: number): string {
  const count = r.batch
    ? `[${'-'.repeat(String(of).length * 2 + 1)}]`
    : `[${String(done).padStart(String(of).length)}/${of}]`;
  const tests = r.failed ? `${r.passed} passed, ${r.failed} failed` : `${r.passed} passed`;
  const why = r.reason ? `: ${r.reason}` : r.note ? ` (${r.note})` : '';
  return `${count} ${r.failed ? '✘' : '✔'} ${nameOf(r)}  ${tests}  ${seconds(r.ms)}${why}`;
}

/** Each failed file's whole output under a heading naming the file and why it failed. */
export function failureLines(results: FileResult[]): string[] {
  const failed = results.filter((r) => r.failed > 0);
  if (failed.length === 0) return [];
  const lines = ['', `── ${failed.length} failed ${failed.length === 1 ? 'file' : 'files'} ──`];
  for (const r of failed) lines.push('', `✘ ${nameOf(r)}: ${r.reason}`, r.output.trimEnd() || '(it printed nothing)');
  return lines;
}

export function slowestLines(results: FileResult[]): string[] {
  if (results.length < 2) return [];
  const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST);
  return ['', `slowest ${slowest.length}:`, ...slowest.map((r) => `${seconds(r.ms).padStart(9)}  ${nameOf(r)}`)];
}

/** Under --repeat: for each file, how many of its runs passed. */
export function repeatLines(results: FileResult[]): string[] {
  const byFile = new Map<string, FileResult[]>();
  for (const r of results.filter((r) => r.run !== undefined)) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
  return [...byFile].map(([file, runs]) => {
    const failed = runs.filter((r) => r.failed > 0).map((r) => `#${r.run}`);
    const passed = runs.length - failed.length;
    return `${file}: ${passed} of ${runs.length} runs passed${failed.length ? ` (failed: ${failed.join(' ')})` : ''}`;
  });
}

/** The closing lines; the totals line is the last, in the form CI and the tools read. */
export function closingLines(
  results: FileResult[],
  wallMs: number,
  cut?: { stopped: string[]; notStarted: number },
): string[] {
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  const fileMs = results.reduce((n, r) => n + r.ms, 0);
  const lines = ['', `${results.length} files in ${seconds(wallMs)} (${seconds(fileMs)} of file time)`];
  if (cut) lines.push(`interrupted: stopped ${cut.stopped.join(', ') || 'nothing'}; ${cut.notStarted} not started`);
  return [...lines, `${passed} passed, ${failed} failed`];
}
