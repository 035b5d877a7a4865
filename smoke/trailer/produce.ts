// Decides the trailer: compose when a runtime is usable, otherwise SKIPPED with the reason (and, if asked, the local
// stack).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { COMPOSE_FILES, type ProduceOptions } from './args.ts';
import { composeTrailer } from './compose.ts';
import type { Trailer } from './format.ts';
import { localStackSmoke } from './local.ts';
import { detectRuntime } from './runtime.ts';
import { projectRoot as root } from '../../tools/project-root.ts';

export const COMPOSE_PROJECT = 'service-health-kit-smoke';

export async function produceTrailer(
  options: ProduceOptions,
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void,
): Promise<Trailer> {
  const runtime = await detectRuntime(env);
  if (!runtime.ok)
    return options.localStack ? withLocalStack(runtime.reason, env) : { verdict: 'SKIPPED', detail: runtime.reason };
  const file = options.composeFile ?? COMPOSE_FILES.map((name) => join(root, name)).find((path) => existsSync(path));
  if (!file)
    return { verdict: 'SKIPPED', detail: `no compose file in the project (looked for ${COMPOSE_FILES.join(', ')})` };
  return composeTrailer({
    runtime: runtime.runtime,
    file,
    project: COMPOSE_PROJECT,
    waitTimeoutS: options.waitTimeoutS,
    targets: { frontend: options.frontend, backend: options.backend },
    artifacts: options.artifacts,
    probeTimeoutMs: options.probeTimeoutMs,
    env,
    warn,
  });
}

// What did get verified is added to the reason; a failing local probe is a real failure, but never a PASS.
async function withLocalStack(reason: string, env: NodeJS.ProcessEnv): Promise<Trailer> {
  const local = await localStackSmoke(env);
  if (local.result === 'FAIL') return { verdict: 'FAIL', detail: `${local.text}; compose not run: ${reason}` };
  return { verdict: 'SKIPPED', detail: `${reason}; ${local.text}` };
}
