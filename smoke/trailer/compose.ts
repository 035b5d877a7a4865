// The compose path of the trailer: bring the stack up healthy, smoke it, and always bring it down again; a failure
// is explained by what the containers say before they go. The stack publishes on free ports of its own (host
// port 0; compose.yaml reads FRONTEND_PORT and BACKEND_PORT) and the smoke probes the ports compose reports, so a
// developer's stack on 3000/3001 never makes it fail. The images are built from a copy of the smoked tree
// (tree.ts), with RELEASE_ID set to its short name, and the smoke expects that release to answer.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { failingChecks } from '../../lib/health-judge.ts';
import { explain, runCommand, type CommandResult } from '../../tools/child-process.ts';
import { REPORT_NAME } from '../artifacts.ts';
import { composeConfig, imageIds } from './stack-identity.ts';
import { addToReport, causeOf, evidenceSection, gatherEvidence } from './evidence.ts';
import { boundDetail, formatTrailer, passDetail, type TrailerVerdict } from './line.ts';
import type { SmokeResult } from '../types.ts';
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
  /** The smoked tree's short name: the images' RELEASE_ID and the release the smoke expects to answer. */
  release: string;
  /** The directory the compose files' build contexts were copied to; `.` in the config's digest. */
  copy?: string;
  /** Stop bringing the stack up and smoking it at this time (Date.now() ms); `down` runs all the same. */
  deadline?: number;
}

/** What one compose smoke showed: the verdict, the detail without the tree, and the evidence to note. */
export interface ComposeRun {
  verdict: TrailerVerdict;
  what: string;
  smoke: SmokeResult | null;
  images: Record<string, string>;
  composeConfig: string | null;
  /** The deadline passed before a verdict. */
  late?: boolean;
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

export async function composeTrailer(options: ComposeOptions): Promise<ComposeRun> {
  const { runtime, files, project, warn } = options;
  const compose = ['compose', ...files.flatMap((file) => ['-f', file]), '-p', project];
  const env: NodeJS.ProcessEnv = { ...options.env, RELEASE_ID: options.release, SMOKE_EXPECT_VERSION: options.release };
  for (const [service, { variable }] of Object.entries(PUBLISHED)) {
    if (options.targets[service as keyof typeof PUBLISHED] === undefined) env[variable] = '0';
  }
  const left = (ms: number) => Math.max(1, Math.min(ms, (options.deadline ?? Infinity) - Date.now()));
  const stack: Stack = { ...options, compose, env, left };
  // Last run's report must not stand beside this run's verdict (the smoke clears it too, but may never run).
  await rm(join(options.artifacts, REPORT_NAME), { force: true });
  try {
    const run = await upAndSmoke(stack);
    // Whatever a run stopped at its deadline found (a killed build, a smoke cut short) says nothing of the tree.
    const late = options.deadline !== undefined && Date.now() >= options.deadline && run.verdict !== 'PASS';
    return late ? { ...run, late } : run;
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

async function upAndSmoke(stack: Stack): Promise<ComposeRun> {
  const { runtime, compose, env, left, targets } = stack;
  const config = composeConfig(stack, PORT_TIMEOUT_MS);
  const upLimitMs = left(stack.waitTimeoutS * 1000 + BUILD_ALLOWANCE_MS);
  const upArgs = [...compose, 'up', '--build', '--detach', '--wait', '--wait-timeout', String(stack.waitTimeoutS)];
  const up = await runCommand(runtime, upArgs, { env, timeoutMs: upLimitMs });
  const noRun = { smoke: null, images: {}, composeConfig: await config };
  if (up.code !== 0) return { ...noRun, ...(await upFailed(stack, up, upLimitMs)) }; // evidence read before `down`
  const frontend = targets.frontend ?? (await publishedUrl(stack, 'frontend'));
  if (typeof frontend !== 'string') return { ...noRun, ...frontend };
  const backend = targets.backend ?? (await publishedUrl(stack, 'backend'));
  if (typeof backend !== 'string') return { ...noRun, ...backend };
  const smokeOptions = {
    artifacts: stack.artifacts,
    probeTimeoutMs: stack.probeTimeoutMs,
    env,
    limitMs: left(Infinity),
  };
  // The image ids are read while the smoke runs: the evidence costs no time of its own.
  const [smoke, images] = await Promise.all([
    smokeAgainst({ frontend, backend }, smokeOptions),
    imageIds(stack, PORT_TIMEOUT_MS),
  ]);
  const ran = { smoke: 'record' in smoke ? (smoke.record ?? null) : null, images, composeConfig: await config };
  if (smoke.result === 'PASS')
    return { ...ran, verdict: 'PASS', what: passDetail(smoke.total, runtime, smoke.retried) };
  if (smoke.result === 'FAIL') return { ...ran, ...(await probeFailed(stack, smoke)) };
  return { ...ran, verdict: 'SKIPPED', what: `${smoke.problem} (against ${runtime} compose)` };
}

/** http://HOST:PORT where compose published the service, or a FAIL trailer saying why there is none. */
async function publishedUrl(
  { runtime, compose, env, left }: Stack,
  service: keyof typeof PUBLISHED,
): Promise<string | Failure> {
  const port = await runCommand(runtime, [...compose, 'port', service, String(PUBLISHED[service].port)], {
    env,
    timeoutMs: left(PORT_TIMEOUT_MS),
  });
  const address = /^(\S+):(\d+)\s*$/.exec(port.stdout.trim().split('\n')[0] ?? '');
  if (port.code !== 0 || !address) {
    const why =
      port.code === 0
        ? `it printed "${port.stdout.trim()}"`
        : explain(`${runtime} compose port`, port, 'last', PORT_TIMEOUT_MS);
    return {
      verdict: 'FAIL',
      what: `${runtime} compose publishes no port ${PUBLISHED[service].port} for ${service} (${why})`,
    };
  }
  // 0.0.0.0 / :: mean "every address": probe loopback, in the family compose named.
  const host =
    address[1] === '0.0.0.0' ? '127.0.0.1' : address[1] === '::' || address[1] === '[::]' ? '[::1]' : address[1]!;
  return `http://${host}:${address[2]}`;
}

/** The options with the project's own compose command and environment, and the time left before the deadline. */
type Stack = ComposeOptions & { compose: string[]; env: NodeJS.ProcessEnv; left: (ms: number) => number };

type Failure = Pick<ComposeRun, 'verdict' | 'what'>;

async function upFailed(stack: Stack, up: CommandResult, limitMs: number): Promise<Failure> {
  const { runtime } = stack;
  const why = explain(`${runtime} compose up`, up, 'last', limitMs);
  const said = `${up.stderr}\n${up.stdout}`;
  if (OFFLINE.test(said))
    return { verdict: 'SKIPPED', what: `offline: ${runtime} compose up could not fetch images (${why})` };
  // Whichever service is not running healthy says why: its health check first, else its log.
  const evidence = await gatherEvidence({ ...stack, probed: [] });
  const blamed = 'services' in evidence ? evidence.services[0]?.service : undefined;
  const cause = blamed ? causeOf(evidence, blamed, { prefer: 'health' }) : '';
  const failure: Failure = {
    verdict: 'FAIL',
    what: `${runtime} compose up did not become healthy (${why}${cause ? `; ${cause}` : ''})`,
  };
  await report(stack, failure, evidenceSection(evidence, stack.project), undefined);
  return failure;
}

/** The first failing probe and its cause, with what its service's log says; the containers' part of the report. */
async function probeFailed(stack: Stack, smoke: Extract<SmokeOutcome, { result: 'FAIL' }>): Promise<Failure> {
  const probed = [...new Set((smoke.failing ?? []).map((probe) => probe.target))];
  const evidence = await gatherEvidence({ ...stack, probed });
  // The checks that are not fine say what to look for in the log: the `database` warning, not its consequences.
  const first = smoke.failing?.[0];
  const topics = failingChecks(first?.checks ?? {}, first?.failing).map(([check]) => check);
  // A warning logged before the smoke started, by a service that came up healthy after it, does not explain the
  // failure unless it is about a failing check (the DEVICE_TOKEN warning at start-up says nothing of a dead URL).
  const since = smoke.record ? Date.parse(smoke.record.startedAt) : undefined;
  const cause = probed[0] ? causeOf(evidence, probed[0], { topics, since }) : '';
  const failure: Failure = { verdict: 'FAIL', what: `${smoke.first}${cause ? ` (${cause})` : ''}` };
  await report(stack, failure, evidenceSection(evidence, stack.project), smoke.report);
  return failure;
}

async function report(stack: Stack, failure: Failure, section: string, smokeReport: string | null | undefined) {
  const heading = formatTrailer({ verdict: failure.verdict, detail: boundDetail(stack.release, failure.what) });
  const path = await addToReport(stack.artifacts, smokeReport, heading, section);
  stack.warn(path ? `failure report: ${path}` : `the failure report could not be written in ${stack.artifacts}`);
}
