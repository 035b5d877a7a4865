// The compose path of the trailer: bring the stack up healthy, smoke it, and always bring it down again; a failure
// is explained by what the containers say before they go. The stack publishes on free ports of its own (host
// port 0; compose.yaml reads FRONTEND_PORT and BACKEND_PORT) and the smoke probes the ports compose reports, so a
// developer's stack on 3000/3001 never makes it fail.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { failingChecks } from '../../lib/health-judge.ts';
import { explain, runCommand, type CommandResult } from '../../tools/child-process.ts';
import { REPORT_NAME } from '../artifacts.ts';
import { addToReport, causeOf, evidenceSection, gatherEvidence } from './evidence.ts';
import { formatTrailer, passDetail, type Trailer } from './line.ts';
import { smokeAgainst, type SmokeOutcome, type SmokeTargets } from './smoke.ts';

/** The trailer's own project name, so `down --volumes` never touches a developer's running stack. */
export const COMPOSE_PROJECT = 'service-health-kit-smoke';

export interface ComposeOptions {
  runtime: string;
  /** The compose file, and any override files after it. */
  files: string[];
  /** A project name of its own, so `down --volumes` never touches a developer's running stack. */
  project: string;
  waitTimeoutS: number;
  /** Given addresses are probed as they are; a missing one is the port the stack published. */
  targets: Partial<SmokeTargets>;
  artifacts: string;
  probeTimeoutMs: number;
  env: NodeJS.ProcessEnv;
  warn: (line: string) => void;
}

// Image builds come before the health wait; this bounds a build that never finishes.
const BUILD_ALLOWANCE_MS = 15 * 60_000;
const DOWN_TIMEOUT_MS = 120_000;
const PORT_TIMEOUT_MS = 30_000;

// The services the smoke probes, their container ports and the variables compose.yaml publishes them with.
const PUBLISHED = {
  frontend: { port: 3000, variable: 'FRONTEND_PORT' },
  backend: { port: 3001, variable: 'BACKEND_PORT' },
} as const;

// Phrases of a pull or build that could not reach the network: the environment, not the change, is at fault.
const OFFLINE = new RegExp(
  [
    'dial tcp',
    'no such host',
    'i\\/o timeout',
    'TLS handshake timeout',
    'network is unreachable',
    'temporary failure in name resolution',
    'connection refused.*registry',
    'failed to resolve source metadata',
  ].join('|'),
  'i',
);

export async function composeTrailer(options: ComposeOptions): Promise<Trailer> {
  const { runtime, files, project, waitTimeoutS, warn } = options;
  const compose = ['compose', ...files.flatMap((file) => ['-f', file]), '-p', project];
  const env = { ...options.env };
  for (const [service, { variable }] of Object.entries(PUBLISHED)) {
    if (options.targets[service as keyof typeof PUBLISHED] === undefined) env[variable] = '0';
  }
  const stack: Stack = { ...options, compose, env };
  // Last run's report must not stand beside this run's verdict (the smoke clears it too, but may never run).
  await rm(join(options.artifacts, REPORT_NAME), { force: true });
  try {
    const upLimitMs = waitTimeoutS * 1000 + BUILD_ALLOWANCE_MS;
    const up = await runCommand(
      runtime,
      [...compose, 'up', '--build', '--detach', '--wait', '--wait-timeout', String(waitTimeoutS)],
      {
        env,
        timeoutMs: upLimitMs,
      },
    );
    if (up.code !== 0) return await upFailed(stack, up, upLimitMs); // await: the evidence is read before `down`
    const frontend = options.targets.frontend ?? (await publishedUrl(runtime, compose, 'frontend', env));
    if (typeof frontend !== 'string') return frontend;
    const backend = options.targets.backend ?? (await publishedUrl(runtime, compose, 'backend', env));
    if (typeof backend !== 'string') return backend;
    const smoke = await smokeAgainst(
      { frontend, backend },
      { artifacts: options.artifacts, probeTimeoutMs: options.probeTimeoutMs, env },
    );
    if (smoke.result === 'PASS') return { verdict: 'PASS', detail: passDetail(smoke.total, runtime) };
    if (smoke.result === 'FAIL') return await probeFailed(stack, smoke);
    return { verdict: 'SKIPPED', detail: `${smoke.problem} (against ${runtime} compose)` };
  } finally {
    const down = await runCommand(runtime, [...compose, 'down', '--volumes', '--remove-orphans'], {
      env,
      timeoutMs: DOWN_TIMEOUT_MS,
    });
    if (down.code !== 0) {
      const why = explain(`${runtime} compose down`, down, 'last', DOWN_TIMEOUT_MS);
      warn(`${runtime} compose down failed (${why}); project ${project} may still be running`);
    }
  }
}

/** http://HOST:PORT where compose published the service, or a FAIL trailer saying why there is none. */
async function publishedUrl(
  runtime: string,
  compose: string[],
  service: keyof typeof PUBLISHED,
  env: NodeJS.ProcessEnv,
): Promise<string | Trailer> {
  const port = await runCommand(runtime, [...compose, 'port', service, String(PUBLISHED[service].port)], {
    env,
    timeoutMs: PORT_TIMEOUT_MS,
  });
  const address = /^(\S+):(\d+)\s*$/.exec(port.stdout.trim().split('\n')[0] ?? '');
  if (port.code !== 0 || !address) {
    const why =
      port.code === 0
        ? `it printed "${port.stdout.trim()}"`
        : explain(`${runtime} compose port`, port, 'last', PORT_TIMEOUT_MS);
    return {
      verdict: 'FAIL',
      detail: `${runtime} compose publishes no port ${PUBLISHED[service].port} for ${service} (${why})`,
    };
  }
  // 0.0.0.0 / :: mean "every address": probe loopback, in the family compose named.
  const host =
    address[1] === '0.0.0.0' ? '127.0.0.1' : address[1] === '::' || address[1] === '[::]' ? '[::1]' : address[1]!;
  return `http://${host}:${address[2]}`;
}

/** The options with the project's own compose command and environment. */
type Stack = ComposeOptions & { compose: string[]; env: NodeJS.ProcessEnv };

async function upFailed(stack: Stack, up: CommandResult, limitMs: number): Promise<Trailer> {
  const { runtime } = stack;
  const why = explain(`${runtime} compose up`, up, 'last', limitMs);
  const said = `${up.stderr}\n${up.stdout}`;
  if (OFFLINE.test(said))
    return { verdict: 'SKIPPED', detail: `offline: ${runtime} compose up could not fetch images (${why})` };
  // Whichever service is not running healthy says why: its health check first, else its log.
  const evidence = await gatherEvidence({ ...stack, probed: [] });
  const blamed = 'services' in evidence ? evidence.services[0]?.service : undefined;
  const cause = blamed ? causeOf(evidence, blamed, { prefer: 'health' }) : '';
  const trailer: Trailer = {
    verdict: 'FAIL',
    detail: `${runtime} compose up did not become healthy (${why}${cause ? `; ${cause}` : ''})`,
  };
  await report(stack, trailer, evidenceSection(evidence, stack.project), undefined);
  return trailer;
}

/** The first failing probe and its cause, with what its service's log says; the containers' part of the report. */
async function probeFailed(stack: Stack, smoke: Extract<SmokeOutcome, { result: 'FAIL' }>): Promise<Trailer> {
  const probed = [...new Set((smoke.failing ?? []).map((probe) => probe.target))];
  const evidence = await gatherEvidence({ ...stack, probed });
  // The checks that are not fine say what to look for in the log: the `database` warning, not its consequences.
  const first = smoke.failing?.[0];
  const topics = failingChecks(first?.checks ?? {}, first?.failing).map(([check]) => check);
  const cause = probed[0] ? causeOf(evidence, probed[0], { topics }) : '';
  const trailer: Trailer = { verdict: 'FAIL', detail: `${smoke.first}${cause ? ` (${cause})` : ''}` };
  await report(stack, trailer, evidenceSection(evidence, stack.project), smoke.report);
  return trailer;
}

async function report(stack: Stack, trailer: Trailer, section: string, smokeReport: string | null | undefined) {
  const path = await addToReport(stack.artifacts, smokeReport, formatTrailer(trailer), section);
  stack.warn(path ? `failure report: ${path}` : `the failure report could not be written in ${stack.artifacts}`);
}
