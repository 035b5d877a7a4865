// The artifacts directory: made and proven writable before any probe runs, with last run's screenshots cleared.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SmokeError } from './smoke-error.ts';

export type Outcome = 'ok' | 'fail' | 'error';

const NAMES: Record<Outcome, string> = { ok: 'frontend-ok.png', fail: 'frontend-fail.png', error: 'frontend-error.png' };

const WHY: Record<string, string> = {
  EEXIST: 'a file is in the way',
  ENOTDIR: 'a file is in the way',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOENT: 'the parent cannot hold new directories',
  ENOSPC: 'no space left on the device',
};

export const screenshotName = (outcome: Outcome) => NAMES[outcome];

export async function prepareArtifacts(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    // Write a file rather than trusting access(): root passes access checks on read-only mounts.
    const probe = join(dir, `.smoke-write-test-${process.pid}`);
    await writeFile(probe, '');
    await rm(probe, { force: true });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const why = (code && WHY[code]) ?? message.split('\n')[0];
    throw new SmokeError(`--artifacts ${dir} is not a writable directory: ${code ? `${code}, ` : ''}${why}`, { cause: error });
  }
  // A stale frontend-fail.png next to a fresh frontend-ok.png would mislead whoever reads the artifacts.
  await Promise.all(Object.values(NAMES).map((name) => rm(join(dir, name), { force: true })));
}
