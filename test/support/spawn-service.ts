// Starts one of our services as a real process on a port it binds itself and waits (with a deadline) until it answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnProcess, type Spawned } from './spawn-process.ts';
import { freePort } from '../../tools/free-port.ts';
import { waitFor } from './deadline.ts';
import { httpsGet } from './https-get.ts';
import { listeningPorts, type ListeningPorts } from './listening-ports.ts';
import { serviceArgs } from './compiled-services.ts';

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
  /** The management port's base URL (`METRICS_PORT`, where /metrics is served outside local mode). */
  metricsUrl: string;
  /** The frontend's HTTPS port, when `HTTPS_PORT` opened one beside `PORT`. */
  httpsPort?: number;
}

export interface ServiceOptions {
  env?: Record<string, string | undefined>;
  /**
   * The port to listen on; by default 0, the kernel's choice, read back from the start-up line. Name one only to
   * restart a service where it was (`{ port: first.port }`).
   */
  port?: number;
  /** Path polled until it answers with any HTTP status; false to skip waiting. */
  waitPath?: string | false;
  timeout?: number;
  /** The service serves HTTPS with a certificate this CA (PEM text) signed: `url` is https://, and so is the wait. */
  ca?: string;
}

/** LOG_LEVELs that hide the info-level start-up line: a service started with one is told its ports up front. */
const QUIET = new Set(['warn', 'error', 'fatal', 'silent']);

/**
 * `entry` is relative to the repository root, e.g. `backend/main.ts`. The service binds PORT=0 and METRICS_PORT=0
 * itself unless the test names them: a port picked here and bound seconds later may be taken by then (the
 * kernel hands the same ephemeral range to outgoing connections and to every other test's `freePort()`).
 */
export async function spawnService(entry: string, options: ServiceOptions = {}): Promise<Service> {
  const env = await serviceEnv(entry, options);
  // Each device process its own spool unless the test names one (to restart on it): the default, ./spool, would
  // carry one test's unacknowledged readings into the next.
  let spool: string | undefined;
  if (entry === 'device/main.ts' && !(options.env && 'DEVICE_SPOOL_DIR' in options.env)) {
    env.DEVICE_SPOOL_DIR = spool = mkdtempSync(join(tmpdir(), 'device-spool-'));
  }
  const args = await serviceArgs(root, entry);
  const proc = spawnProcess(process.execPath, args, { cwd: root, env: env as NodeJS.ProcessEnv });
  if (spool) void proc.exited.then(() => rmSync(spool, { recursive: true, force: true }));
  const deadline = Date.now() + (options.timeout ?? 15000);
  try {
    const service = describe(proc, env, await boundPorts(proc, entry, env, deadline), options.ca);
    if (options.waitPath !== false)
      await waitAnswering(service, entry, options.waitPath ?? '/api/health', options.ca, deadline);
    return service;
  } catch (error) {
    await proc.stop();
    throw new Error(`${(error as Error).message}\n--- output of ${entry} ---\n${proc.lines.slice(-20).join('\n')}`);
  }
}

/** The service's environment: PORT and METRICS_PORT 0 unless named (or unless the start-up line stays unsaid). */
async function serviceEnv(entry: string, options: ServiceOptions): Promise<Record<string, string>> {
  const quiet = entry !== 'frontend/main.ts' && QUIET.has(options.env?.LOG_LEVEL ?? '');
  const env: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: String(options.port ?? (quiet ? await freePort() : 0)),
    // A management port of its own: the default, 9464, is the same for every service.
    METRICS_PORT: String(quiet ? await freePort() : 0),
    DEVICE_TOKEN: TEST_DEVICE_TOKEN,
    READ_TOKENS: TEST_READ_TOKEN,
    BACKEND_READ_TOKEN: TEST_READ_TOKEN,
    ...options.env,
  };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return env as Record<string, string>;
}

/**
 * The ports the start-up line names, once it is out; undefined when every port was named up front or the process
 * exited first (a refused start: the caller waits for its exit).
 */
async function boundPorts(proc: Spawned, entry: string, env: Record<string, string>, deadline: number) {
  if (env.PORT !== '0' && env.METRICS_PORT !== '0') return undefined;
  const found = await waitFor(() => (proc.child.exitCode !== null ? 'exited' : listeningPorts(proc.lines)), {
    timeout: Math.max(1, deadline - Date.now()),
    what: `the start-up line of ${entry}`,
  });
  return found === 'exited' ? undefined : found;
}

function describe(proc: Spawned, env: Record<string, string>, ports: ListeningPorts | undefined, ca?: string): Service {
  const port = ports?.port ?? Number(env.PORT);
  const metricsPort = ports?.metricsPort ?? env.METRICS_PORT ?? 0;
  return Object.assign(proc, {
    url: `${ca ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
    ...(ports?.httpsPort ? { httpsPort: ports.httpsPort } : {}),
  });
}

/** Polls `path` until it answers with any HTTP status, or throws once the process exits or the deadline passes. */
async function waitAnswering(service: Service, entry: string, path: string, ca: string | undefined, deadline: number) {
  const url = service.url + path;
  await waitFor(
    async () => {
      if (service.child.exitCode !== null) throw new Error(`exited with ${service.child.exitCode}`);
      if (ca) await httpsGet(url, { ca, timeout: 1000 });
      else await (await fetch(url, { signal: AbortSignal.timeout(1000) })).arrayBuffer();
      return true;
    },
    { timeout: Math.max(1, deadline - Date.now()), what: `${entry} answering on ${url}` },
  );
}
