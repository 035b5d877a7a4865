// The compose path of the trailer: bring the stack up healthy, smoke it, and always bring it down again.
import { explain, runCommand, type CommandResult } from './trailer-exec.ts';
import { passDetail, type Trailer } from './trailer-format.ts';
import { runSmoke, type SmokeTargets } from './trailer-smoke.ts';

export interface ComposeOptions {
  runtime: string;
  file: string;
  /** A project name of its own, so `down --volumes` never touches a developer's running stack. */
  project: string;
  waitTimeoutS: number;
  targets: SmokeTargets;
  artifacts: string;
  probeTimeoutMs: number;
  env: NodeJS.ProcessEnv;
  warn: (line: string) => void;
}

// Image builds come before the health wait; this bounds a build that never finishes.
const BUILD_ALLOWANCE_MS = 15 * 60_000;
const DOWN_TIMEOUT_MS = 120_000;

// Phrases of a pull or build that could not reach the network: the environment, not the change, is at fault.
const OFFLINE = /dial tcp|no such host|i\/o timeout|TLS handshake timeout|network is unreachable|temporary failure in name resolution|connection refused.*registry|failed to resolve source metadata/i;

export async function composeTrailer(options: ComposeOptions): Promise<Trailer> {
  const { runtime, file, project, waitTimeoutS, env, warn } = options;
  const compose = ['compose', '-f', file, '-p', project];
  try {
    const upLimitMs = waitTimeoutS * 1000 + BUILD_ALLOWANCE_MS;
    const up = await runCommand(runtime, [...compose, 'up', '--build', '--detach', '--wait', '--wait-timeout', String(waitTimeoutS)], {
      env,
      timeoutMs: upLimitMs,
    });
    if (up.code !== 0) return upFailed(runtime, up, upLimitMs);
    const smoke = await runSmoke(options.targets, { artifacts: options.artifacts, probeTimeoutMs: options.probeTimeoutMs, env });
    if (smoke.result === 'PASS') return { verdict: 'PASS', detail: passDetail(smoke.total, runtime) };
    if (smoke.result === 'FAIL') return { verdict: 'FAIL', detail: smoke.first };
    return { verdict: 'SKIPPED', detail: `${smoke.problem} (against ${runtime} compose)` };
  } finally {
    const down = await runCommand(runtime, [...compose, 'down', '--volumes', '--remove-orphans'], { env, timeoutMs: DOWN_TIMEOUT_MS });
    if (down.code !== 0) {
      warn(`${runtime} compose down failed (${explain(`${runtime} compose down`, down, 'last', DOWN_TIMEOUT_MS)}); project ${project} may still be running`);
    }
  }
}

function upFailed(runtime: string, up: CommandResult, limitMs: number): Trailer {
  const why = explain(`${runtime} compose up`, up, 'last', limitMs);
  const said = `${up.stderr}\n${up.stdout}`;
  if (OFFLINE.test(said)) return { verdict: 'SKIPPED', detail: `offline: ${runtime} compose up could not fetch images (${why})` };
  return { verdict: 'FAIL', detail: `${runtime} compose up did not become healthy (${why})` };
}
