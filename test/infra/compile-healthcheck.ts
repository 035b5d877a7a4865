// Compiles healthcheck.ts as the image's build stage does: `npm run build:healthcheck` beside package.json, which
// writes dist/healthcheck.cjs.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

export interface Compiled {
  /** Absolute path of the compiled check: dist/healthcheck.cjs, the file the Dockerfile copies to /app. */
  file: string;
  remove(): void;
}

/**
 * Builds in a folder of its own under .tmp/ (so parallel test files do not share dist/), holding what the image's
 * build stage holds: package.json ("type": "module", so only the .cjs name makes the output CommonJS),
 * healthcheck.ts and the project's node_modules.
 */
export async function compileHealthcheck(name: string): Promise<Compiled> {
  const dir = join(root, '.tmp', `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const file of ['package.json', 'healthcheck.ts']) copyFileSync(join(root, file), join(dir, file));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  try {
    await promisify(execFile)(npm, ['run', '--silent', 'build:healthcheck'], { cwd: dir, timeout: 60_000 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `npm run build:healthcheck failed: ${(stdout + stderr).trim().split('\n').slice(0, 5).join(' | ')}`,
    );
  }
  return { file: join(dir, 'dist', 'healthcheck.cjs'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
