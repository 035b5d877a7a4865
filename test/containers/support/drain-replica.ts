// A backend replica sent SIGTERM while requests flow through the load balancer: the swarm tests' check that HAProxy
// follows readiness (a draining replica answers /api/ready 503) and that the drained task ends.
import { waitFor } from '../../support/deadline.ts';
import { dockerOk } from './swarm.ts';
import { createRequestLoop, type Answer } from './request-loop.ts';
import type { SwarmStack } from './swarm-stack.ts';

export interface Drained {
  answers: Answer[];
  /** The replica's address on the stack's network (what X-Backend-Address says). */
  address: string;
  signalledAt: number;
}

/** SIGTERMs one running backend replica under a request loop on the lb's plain port; returns once its task ended. */
export async function drainOneReplica(stack: SwarmStack): Promise<Drained> {
  const [victim] = await stack.running('backend');
  const format = '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}';
  const address = (await dockerOk(['inspect', '--format', format, victim!.container])).trim();
  const loop = createRequestLoop(await stack.url('lb', 3001), ['/api/ready', '/api/health']);
  await waitFor(() => loop.answers.some((answer) => answer.address === address), {
    timeout: 10_000,
    what: 'an answer from the replica about to be stopped',
  });
  const signalledAt = Date.now();
  await dockerOk(['kill', '-s', 'TERM', victim!.container]);
  let answers: Answer[];
  try {
    // Its drain (SHUTDOWN_DELAY_MS 3000) ends with its exit; Swarm then starts a replacement.
    await waitFor(async () => !(await stack.running('backend')).some((task) => task.id === victim!.id), {
      timeout: 20_000,
      interval: 200,
      what: 'the drained task to end',
    });
  } finally {
    answers = await loop.stop();
  }
  return { answers, address, signalledAt };
}
