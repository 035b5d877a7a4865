// Compiles healthcheck.ts exactly as the image does (`npm run build:healthcheck`), into a scratch directory.
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

export interface Compiled {
  /** Absolute path of the compiled healthcheck.js. */
  file: string;
  remove(): void;
}

/**
 * The output goes under .tmp/ inside the project so the nearest package.json ("type": "module") applies,
 * as /app/package.json does in the image. A later --outDir overrides the script's own.
 */
export async function compileHealthcheck(name: string): Promise<Compiled> {
  const dir = join(root, '.tmp', `${name}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  try {
    await promisify(execFile)(npm, ['run', '--silent', 'build:healthcheck', '--', '--outDir', dir], { cwd: root, timeout: 60_000 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm run build:healthcheck failed: ${(stdout + stderr).trim().split('\n').slice(0, 5).join(' | ')}`);
  }
  return { file: join(dir, 'healthcheck.js'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
