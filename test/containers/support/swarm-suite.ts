// One swarm test file's set-up: a swarm (or the reason there is none, which skips every test), its own stack built,
// deployed and converged before the tests, and removed with its volumes after them, whatever they did.
import { suite } from 'uvu';
import { acquireSwarm } from './swarm.ts';
import { createSwarmStack } from './swarm-stack.ts';

export const CONVERGE_MS = 90_000;

/** `beforeRemove` undoes what a test may have left (a frozen container) before the stack goes. */
export async function swarmSuite(
  name: string,
  file: string,
  { env = {}, beforeRemove }: { env?: Record<string, string>; beforeRemove?: () => Promise<void> } = {},
) {
  const test = suite(name);
  const access = await acquireSwarm();
  if (!access.ok) console.log(`skipped: ${access.reason}`);
  const stack = createSwarmStack(file, env);
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
    await access.release();
  });
  return { test, swarmTest: access.ok ? test : test.skip, stack };
}
