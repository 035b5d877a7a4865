// Brings the local stack up in order (database, then backend, device and frontend), smokes it, and stops it.
import { randomBytes } from 'node:crypto';
import { isRequestLine, startChild, type StackChild } from './child.ts';
import { projectRoot as root } from '../../tools/project-root.ts';
import { baseUrl, type StackConfig } from './config.ts';
import { startDatabase, type Database } from './database.ts';
import { stackError } from './error.ts';
import type { CLIError } from '../../tools/cli-error.ts';
import { freePort } from '../../tools/free-port.ts';
import { entryArgs } from '../../tools/node-entry.ts';
import { portProblem } from './ports.ts';
import { waitUntilReady } from './ready.ts';

export interface Urls {
  backend: string;
  device: string;
  frontend: string;
}

export interface StackIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Whether the services may colour their lines: the stack's stdout is a terminal and NO_COLOR is unset. */
  colour: boolean;
}

const STOP_GRACE_MS = 10_000;

export function createStack(config: StackConfig, env: NodeJS.ProcessEnv, io: StackIo) {
  const children: StackChild[] = [];
  let database: Database | undefined;
  // The children write into pipes, so they cannot see whether our stdout is a terminal: we tell them. Their
  // pretty logs go one entry per line (each line gets a name prefix), in colour only for a terminal.
  const childEnv: NodeJS.ProcessEnv = { LOG_SINGLE_LINE: '1', ...(io.colour ? {} : { NO_COLOR: '1' }) };
  // Until the smoke is done, request lines are our own readiness polls and the smoke's: they say nothing.
  let hideRequests = true;
  const hide = (line: string) => hideRequests && isRequestLine(line);
  const start = (name: string, command: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}, prefix?: string) => {
    const child = startChild({
      name,
      command,
      args,
      cwd: root,
      env: { ...env, ...childEnv, ...extraEnv },
      print: io.out,
      hide,
      ...(prefix === undefined ? {} : { prefix }),
    });
    children.push(child);
    if (child.pid > 0 && name !== 'smoke') io.out(`stack: ${name} started (pid ${child.pid})`);
    return child;
  };
  const urls: Urls = {
    backend: baseUrl(config.host, config.backendPort),
    device: baseUrl(config.host, config.devicePort),
    frontend: baseUrl(config.host, config.frontendPort),
  };

  async function up(): Promise<Urls> {
    const ports: Array<[string, number, string]> = [
      ['backend', config.backendPort, 'BACKEND_PORT'],
      ['device', config.devicePort, 'DEVICE_PORT'],
      ['frontend', config.frontendPort, 'FRONTEND_PORT'],
    ];
    if (!config.mongodbUri && config.mongoPort !== undefined) ports.push(['database', config.mongoPort, 'MONGO_PORT']);
    for (const [name, port, variable] of ports) {
      const problem = await portProblem(port, name === 'database' ? '127.0.0.1' : config.host);
      if (problem) throw stackError(name, `cannot start: ${problem} (stop what uses it, or set ${variable})`);
    }
    const deadline = Date.now() + config.readyTimeoutMs;
    database = await startDatabase({
      uri: config.mongodbUri,
      port: config.mongoPort ?? (await freePort()),
      path: env.PATH,
      deadlineMs: config.readyTimeoutMs,
      start: (name, command, args) => start(name, command, args),
    });
    io.out(`stack: ${database.note}`);
    const host = config.host === undefined ? {} : { HOST: config.host };
    // A fresh device token for this stack only, known to its backend and its device service and nothing else.
    const DEVICE_TOKEN = randomBytes(24).toString('base64url');
    const backend = start('backend', process.execPath, entryArgs('backend/main.ts', env), {
      ...host,
      NODE_ENV: 'local',
      PORT: String(config.backendPort),
      MONGODB_URI: database.uri,
      DEVICE_TOKEN,
    });
    const device = start('device', process.execPath, entryArgs('device/main.ts', env), {
      ...host,
      NODE_ENV: 'local',
      PORT: String(config.devicePort),
      BACKEND_URL: urls.backend,
      DEVICE_TOKEN,
    });
    const frontend = start('frontend', process.execPath, entryArgs('frontend/main.ts', env), {
      ...host,
      NODE_ENV: 'local',
      PORT: String(config.frontendPort),
      BACKEND_URL: urls.backend,
      DEVICE_URL: urls.device,
    });
    await waitUntilReady(
      [
        { child: backend, url: `${urls.backend}/api/ready` },
        { child: device, url: `${urls.device}/api/ready` },
        { child: frontend, url: `${urls.frontend}/` },
      ],
      [...children],
      deadline,
      config.readyTimeoutMs,
    );
    return urls;
  }

  /** Runs the smoke CLI with --device; its lines are printed as they are, and its exit code returned. */
  async function smoke(): Promise<number> {
    const args = [
      ...entryArgs('smoke/cli.ts', env),
      '--frontend',
      urls.frontend,
      '--backend',
      urls.backend,
      '--device',
      urls.device,
    ];
    args.push('--artifacts', config.artifacts, '--timeout', String(config.probeTimeoutMs));
    if (config.smokeJson) args.push('--json', config.smokeJson);
    const child = start('smoke', process.execPath, args, {}, '');
    const { code } = await child.exited;
    hideRequests = false;
    children.splice(children.indexOf(child), 1);
    return code ?? 2;
  }

  /** Resolves with the first service that exits on its own while the stack runs. */
  function firstExit(): Promise<CLIError> {
    return Promise.race(
      children.map((child) =>
        child.exited.then(({ code, signal }) =>
          stackError(
            child.name,
            `stopped unexpectedly (${code !== null ? `code ${code}` : `signal ${signal}`})`,
            child.lastLines(),
          ),
        ),
      ),
    );
  }

  /** Stops every child, newest first, so nothing is left running; true when each exited cleanly. */
  async function down(): Promise<boolean> {
    let clean = true;
    for (const child of [...children].reverse()) {
      const wasRunning = !child.exit;
      const { code, signal } = await child.stop(STOP_GRACE_MS);
      if (wasRunning && code !== 0 && signal !== 'SIGTERM') clean = false;
    }
    await database?.cleanup();
    return clean;
  }

  return { up, smoke, firstExit, down, children, urls };
}
