// The artifacts directory: made and proven writable before any probe runs, with last run's screenshots and failure
// report cleared.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { answerWithin, gaveNoAnswer } from './fs-answer.ts';
import { describeFsError } from './fs-error.ts';
import { CLIError } from '../tools/cli-error.ts';

export type Outcome = 'ok' | 'fail' | 'error';

const NAMES: Record<Outcome, string> = {
  ok: 'frontend-ok.png',
  fail: 'frontend-fail.png',
  error: 'frontend-error.png',
};

/** A failed run's report for people, beside the screenshots (smoke/failure-report.ts). */
export const REPORT_NAME = 'smoke-report.md';

export const screenshotName = (outcome: Outcome) => NAMES[outcome];
export const screenshotNames = () => Object.values(NAMES);

export async function prepareArtifacts(dir: string): Promise<void> {
  const check = async () => {
    await mkdir(dir, { recursive: true });
    // Write a file rather than trusting access(): root passes access checks on read-only mounts.
    const probe = join(dir, `.smoke-write-test-${process.pid}`);
    await writeFile(probe, '');
    await rm(probe, { force: true });
  };
  try {
    await answerWithin(check(), `--artifacts ${dir}`);
  } catch (error) {
    if (gaveNoAnswer(error)) throw error;
    throw new CLIError(`--artifacts ${dir} is not a writable directory: ${describeFsError(error)}`, { cause: error });
  }
  // A stale frontend-fail.png next to a fresh frontend-ok.png, or last run's report beside a PASS, would mislead
  // whoever reads the artifacts.
  await Promise.all([...Object.values(NAMES), REPORT_NAME].map((name) => rm(join(dir, name), { force: true })));
}
