// One compose project of the project's own compose.yaml for a container test: its own project name and free
// published ports (host port 0), so it never meets a developer's stack on 3000/3001/3003 or another test's.
import { basename } from 'node:path';
import { explain, runCommand, type CommandResult } from '../../../tools/child-process.ts';
import { root } from '../../support/spawn-service.ts';
import { onTerminate } from '../../support/on-terminate.ts';

// Generous bounds for commands; what a test asserts is a bound of its own, named there.
const BUILD_TIMEOUT_MS = 10 * 60_000;
const COMMAND_TIMEOUT_MS = 120_000;
export const WAIT_TIMEOUT_S = 120;

export interface Published {
  hostIp: string;
  hostPort: number;
}

export class ComposeStack {
  readonly project: string;
  readonly env: NodeJS.ProcessEnv;
  private readonly base: string[];
  /** The profiles `up` was given, so `down` removes their services too. */
  private profiles: string[] = [];
  /** Unregisters the `down` a file stopped at its deadline runs (test/support/on-terminate.ts). */
  private forget: (() => void) | undefined;

  /** `name` (a test file's name) and the pid make the project name; `files` are relative to the project root. */
  constructor(name: string, files: string[] = ['compose.yaml'], env: Record<string, string> = {}) {
    this.project = `shk-test-${basename(name)
      .replace(/\.container\.ts$/, '')
      .replace(/[^a-z0-9]/g, '')}-${process.pid}`;
    this.base = ['compose', '--project-directory', root, '-p', this.project, ...files.flatMap((file) => ['-f', file])];
    this.env = {
      ...process.env,
      FRONTEND_PORT: '0',
      BACKEND_PORT: '0',
      DEVICE_PORT: '0',
      PUBLIC_FRONTEND_PORT: '0',
      PUBLIC_BACKEND_PORT: '0',
      PUBLIC_FRONTEND_HTTPS_PORT: '0',
      ...env,
    };
  }

  compose(args: string[], timeoutMs = COMMAND_TIMEOUT_MS): Promise<CommandResult> {
    return runCommand('docker', [...this.base, ...args], { env: this.env, cwd: root, timeoutMs });
  }

  docker(args: string[], timeoutMs = COMMAND_TIMEOUT_MS): Promise<CommandResult> {
    return runCommand('docker', args, { env: this.env, cwd: root, timeoutMs });
  }

  /** Builds the images (cached after the first run), so `up` is timed without the build. */
  async build(profiles: string[] = []): Promise<void> {
    const build = await this.compose([...profileArgs(profiles), 'build'], BUILD_TIMEOUT_MS);
    if (build.code !== 0)
      throw new Error(
        `docker compose build failed: ${explain('docker compose build', build, 'last', BUILD_TIMEOUT_MS)}`,
      );
  }

  /** `up --build --wait`; a failure throws with the last log lines of each service that is not healthy. */
  async up(profiles: string[] = []): Promise<CommandResult> {
    this.profiles = profiles;
    this.forget ??= onTerminate(() => this.down());
    const up = await this.compose(
      [...profileArgs(profiles), 'up', '--build', '--detach', '--wait', '--wait-timeout', String(WAIT_TIMEOUT_S)],
      BUILD_TIMEOUT_MS,
    );
    if (up.code !== 0)
      throw new Error(
        `docker compose up failed: ${explain('docker compose up', up, 'last', BUILD_TIMEOUT_MS)}\n` +
          (await this.unhealthyLogs(profiles)),
      );
    return up;
  }

  /** The last log lines of every service that is not running healthy: what a failing `up` needs to show. */
  async unhealthyLogs(profiles: string[] = []): Promise<string> {
    const ps = await this.compose([
      ...profileArgs(profiles),
      'ps',
      '--all',
      '--format',
      '{{.Service}} {{.State}} {{.Health}}',
    ]);
    const failing = ps.stdout
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter(
        ([service, state, health]) =>
          service && !(state === 'running' && (health === 'healthy' || health === undefined || health === '')),
      );
    const parts: string[] = [];
    for (const [service, state, health] of failing)
      parts.push(await this.lastLogs(service!, `${state} ${health ?? ''}`));
    return parts.join('\n') || `(no failing service found; ps said: ${ps.stdout.trim() || ps.stderr.trim()})`;
  }

  /** A service's last 20 log lines under a heading: what a failed assertion on the running stack shows. */
  async lastLogs(service: string, state = 'running'): Promise<string> {
    const logs = await this.compose(['logs', '--no-color', '--tail', '20', service]);
    return `--- ${service} (${state}), last log lines:\n${logs.stdout.trimEnd()}`;
  }

  /** The container id of a service. */
  async container(service: string): Promise<string> {
    const ps = await this.compose(['ps', '--all', '-q', service]);
    const id = ps.stdout.trim().split('\n')[0];
    if (ps.code !== 0 || !id) throw new Error(`no container for ${service}: ${explain('docker compose ps', ps)}`);
    return id;
  }

  /** Every host address a service's container port is published on. */
  async published(service: string, port: number): Promise<Published[]> {
    const inspect = await this.docker([
      'inspect',
      '--format',
      `{{json (index .NetworkSettings.Ports "${port}/tcp")}}`,
      await this.container(service),
    ]);
    const bindings = JSON.parse(inspect.stdout.trim() || 'null') as { HostIp: string; HostPort: string }[] | null;
    return (bindings ?? []).map((binding) => ({ hostIp: binding.HostIp, hostPort: Number(binding.HostPort) }));
  }

  /** http://127.0.0.1:PORT of a service's loopback-published port. */
  async url(service: string, port: number): Promise<string> {
    const loopback = (await this.published(service, port)).find((binding) => binding.hostIp === '127.0.0.1');
    if (!loopback) throw new Error(`${service}:${port} is not published on 127.0.0.1`);
    return `http://127.0.0.1:${loopback.hostPort}`;
  }

  async inspect<T>(service: string, format: string): Promise<T> {
    const inspect = await this.docker(['inspect', '--format', `{{json ${format}}}`, await this.container(service)]);
    if (inspect.code !== 0) throw new Error(`docker inspect ${service}: ${explain('docker inspect', inspect)}`);
    return JSON.parse(inspect.stdout) as T;
  }

  /** The engine's container events of this project since `since` (a Date), oldest first. */
  async events(since: Date): Promise<EngineEvent[]> {
    const result = await this.docker([
      'events',
      '--since',
      since.toISOString(),
      '--until',
      new Date().toISOString(),
      '--filter',
      'type=container',
      '--filter',
      `label=com.docker.compose.project=${this.project}`,
      '--format',
      '{{json .}}',
    ]);
    return result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as RawEvent)
      .map((event) => ({
        service: event.Actor.Attributes['com.docker.compose.service'] ?? '?',
        action: event.Action,
        at: event.timeNano / 1e6,
      }));
  }

  /** Containers, networks, volumes, and the images this project built (their layers stay in the build cache). */
  down(): Promise<CommandResult> {
    this.forget?.();
    this.forget = undefined;
    return this.compose([
      ...profileArgs(this.profiles),
      'down',
      '--volumes',
      '--remove-orphans',
      '--rmi',
      'local',
      '--timeout',
      '20',
    ]);
  }
}

interface RawEvent {
  Action: string;
  timeNano: number;
  Actor: { Attributes: Record<string, string> };
}

export interface EngineEvent {
  service: string;
  /** start, die, health_status: healthy, ... */
  action: string;
  /** Milliseconds since the epoch. */
  at: number;
}

const profileArgs = (profiles: string[]) => profiles.flatMap((profile) => ['--profile', profile]);

/** GET a URL once with a deadline: the status, or 0 when nothing answered. */
export async function status(url: string, timeoutMs = 1000): Promise<number> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })).status;
  } catch {
    return 0;
  }
}
