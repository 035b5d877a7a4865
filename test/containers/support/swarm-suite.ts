// One swarm test file's set-up: a swarm (or the reason there is none, which skips every test), its own stack built,
// deployed and converged before the tests, and removed with its volumes after them, whatever they did; the swarm
// itself stays (./swarm.ts says why).
import { suite } from 'uvu';
import { acquireSwarm } from './swarm.ts';
import { createSwarmStack } from './swarm-stack.ts';

export const CONVERGE_MS = 90_000;
/** TLS from the load balancer to the replicas, as an operator adds it (docs/access.md#tls-inside-the-swarm-stack). */
export const INTERNAL_TLS = 'deploy/swarm/internal-tls.yaml';

/**
 * SWARM_INTERNAL_TLS=1 deploys every swarm test's stack with INTERNAL_TLS too: how the self-healing, update and
 * rollback tests were measured with it on.
 */
const everywhere = process.env.SWARM_INTERNAL_TLS === '1' ? [INTERNAL_TLS] : [];

interface SuiteOptions {
  env?: Record<string, string>;
  /** Compose files deployed on top of the stack's. */
  overlays?: string[];
  /** Undoes what a test may have left (a frozen container) before the stack goes. */
  beforeRemove?: () => Promise<void>;
}

export async function swarmSuite(
  name: string,
  file: string,
  { env = {}, overlays = [], beforeRemove }: SuiteOptions = {},
) {
  const test = suite(name);
  const access = await acquireSwarm();
  if (!access.ok) console.log(`skipped: ${access.reason}`);
  const stack = createSwarmStack(file, env, [...new Set([...overlays, ...everywhere])]);
  test.before(async () => {
    if (!access.ok) return;
    await stack.build();
    await stack.deploy();
    await stack.converged(CONVERGE_MS);
  });
  test.after(async () => {
    if (!access.ok) return;
    await beforeRemove?.();
    await stack.remove();
    await stack.removeVolumes().catch(() => {});
  });
  return { test, swarmTest: access.ok ? test : test.skip, stack };
}
