// Starts one of our services as a real process on a free port and waits (with a deadline) until it answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnProcess, type Spawned } from './spawn-process.ts';
import { freePort } from '../../tools/free-port.ts';
import { waitFor } from './deadline.ts';
import { httpsGet } from './https-get.ts';

export const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The DEVICE_TOKEN every spawned service gets unless a test sets its own (or `DEVICE_TOKEN: undefined`), so the
 * backend and the device service trust each other as they do in a real deployment. Tests look for it in output.
 */
export const TEST_DEVICE_TOKEN = 'test-device-token-7c1e9a4b52d8f036';

/**
 * The READ_TOKENS (and the frontend's BACKEND_READ_TOKEN) every spawned service gets unless a test sets its own:
 * outside local mode the backend's /api/readings and /api/devices answer only a request with `READ_AUTH`'s header.
 */
export const TEST_READ_TOKEN = 'test-read-token-3f9b20c6e1d47a58';
export const READ_AUTH = { Authorization: `Bearer ${TEST_READ_TOKEN}` };

export interface Service extends Spawned {
  url: string;
  port: number;
}

export interface ServiceOptions {
  env?: Record<string, string | undefined>;
  port?: number;
  /** Path polled until it answers with any HTTP status; false to skip waiting. */
  waitPath?: string | false;
  timeout?: number;
  /** The service serves HTTPS with a certificate this CA (PEM text) signed: `url` is https://, and so is the wait. */
  ca?: string;
}

/** `entry` is relative to the repository root, e.g. `backend/main.ts`. */
export async function spawnService(entry: string, options: ServiceOptions = {}): Promise<Service> {
  const port = options.port ?? (await freePort());
  const env: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: String(port),
    DEVICE_TOKEN: TEST_DEVICE_TOKEN,
    READ_TOKENS: TEST_READ_TOKEN,
    BACKEND_READ_TOKEN: TEST_READ_TOKEN,
    ...options.env,
  };
  // Each device process its own spool unless the test names one (to restart on it): the default, ./spool, would
  // carry one test's unacknowledged readings into the next.
  let spool: string | undefined;
  if (entry === 'device/main.ts' && !(options.env && 'DEVICE_SPOOL_DIR' in options.env)) {
    env.DEVICE_SPOOL_DIR = spool = mkdtempSync(join(tmpdir(), 'device-spool-'));
  }
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const proc = spawnProcess(process.execPath, ['--import', 'tsx', entry], { cwd: root, env: env as NodeJS.ProcessEnv });
  if (spool) void proc.exited.then(() => rmSync(spool, { recursive: true, force: true }));
  const url = `${options.ca ? 'https' : 'http'}://127.0.0.1:${port}`;
  const service: Service = Object.assign(proc, { url, port });
  if (options.waitPath !== false) {
    const path = options.waitPath ?? '/api/health';
    try {
      await waitFor(
        async () => {
          if (proc.child.exitCode !== null) throw new Error(`exited with ${proc.child.exitCode}`);
          if (options.ca) await httpsGet(url + path, { ca: options.ca, timeout: 1000 });
          else await (await fetch(url + path, { signal: AbortSignal.timeout(1000) })).arrayBuffer();
          return true;
        },
        { timeout: options.timeout ?? 15000, what: `${entry} answering on ${url}${path}` },
      );
    } catch (error) {
      await proc.stop();
      throw new Error(`${(error as Error).message}\n--- output of ${entry} ---\n${proc.lines.slice(-20).join('\n')}`);
    }
  }
  return service;
}
