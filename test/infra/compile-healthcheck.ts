// Compiles healthcheck.ts as the image does: `npm run build:healthcheck`, then the output taken as healthcheck.cjs.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

export interface Compiled {
  /** Absolute path of the compiled check, named healthcheck.cjs as the Dockerfile copies it. */
  file: string;
  remove(): void;
}

/**
 * The output goes under .tmp/ inside the project, beside the same package.json ("type": "module") as in the
 * image, so only the .cjs name makes it CommonJS, as there. A later --outDir overrides the script's own.
 */
export async function compileHealthcheck(name: string): Promise<Compiled> {
  const dir = join(root, '.tmp', `${name}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  try {
    await promisify(execFile)(npm, ['run', '--silent', 'build:healthcheck', '--', '--outDir', dir], {
      cwd: root,
      timeout: 60_000,
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `npm run build:healthcheck failed: ${(stdout + stderr).trim().split('\n').slice(0, 5).join(' | ')}`,
    );
  }
  const file = join(dir, 'healthcheck.cjs');
  copyFileSync(join(dir, 'healthcheck.js'), file); // COPY --from=build /app/dist/healthcheck.js ./healthcheck.cjs
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
