// What the container tests check of a Node service's image: it runs as the node user, and its health check passes.
import * as assert from 'uvu/assert';
import type { ComposeStack } from './compose-stack.ts';

export interface HealthLogEntry {
  ExitCode: number;
  Output: string;
}

/** The engine's log of a service's recent health checks, oldest first. */
export const healthLog = (stack: ComposeStack, service: string) =>
  stack.inspect<HealthLogEntry[]>(service, '.State.Health.Log');

/**
 * Asserts that `service` runs as `node` (uid 1000) and that its last health check exited 0; an earlier check may
 * have found it still starting (a busy machine), and then failed only for not listening yet.
 */
export async function assertHealthyAsNode(stack: ComposeStack, service: string): Promise<void> {
  assert.is(await stack.inspect<string>(service, '.Config.User'), 'node');
  // `docker exec` runs as the image's USER, as the HEALTHCHECK does.
  const id = await stack.docker(['exec', await stack.container(service), 'id', '-u']);
  assert.is(id.stdout.trim(), '1000');
  const log = await healthLog(stack, service);
  assert.is(log.at(-1)?.ExitCode, 0, JSON.stringify(log));
  for (const entry of log.filter((entry) => entry.ExitCode !== 0)) assert.match(entry.Output, /ECONNREFUSED/);
}
