// Self-healing: a backend replica whose process hangs (SIGSTOP) turns unhealthy and Swarm replaces it. The test
// shortens the health timing on the live service (interval and timeout 1 s, as `docker service update` allows) and
// measures from the freeze to a new task running (Swarm counts a task running once its health check passed).
// Expected (docs/containers.md#self-healing): unhealthy after up to 1 + 3 × (1 + 1) = 7 s, then the backend's whole
// stop_grace_period (6 s: the frozen process ignores SIGTERM) before its SIGKILL, the restart delay (1 s), and the
// new task's start and first passing check (2–7 s): at most about 21 s, bound 30 s.
// The Engine's own swarm (made one if it is none, never left: support/swarm.ts), one file at a time:
// test-exclusive: engine-swarm
import * as assert from 'uvu/assert';
import { CONVERGE_MS, swarmSuite } from './support/swarm-suite.ts';
import { waitFor } from '../support/deadline.ts';
import { docker, dockerOk } from './support/swarm.ts';
import type { UpdateStatus } from './support/swarm-stack.ts';
import { createRequestLoop, failures } from './support/request-loop.ts';

const { test, swarmTest, stack } = await swarmSuite('swarm self-healing', import.meta.filename, {
  beforeRemove: async () => {
    if (frozen) await docker(['kill', '-s', 'CONT', frozen]);
  },
});
const REPLACED_WITHIN_MS = 30_000;
// How long the test waits to see it (the bound is asserted on the engine's timestamps).
const WAIT_MS = 90_000;
let frozen = '';

swarmTest(`a SIGSTOPped backend replica is replaced by Swarm within ${REPLACED_WITHIN_MS} ms`, async () => {
  // A rolling update of its own (start-first, one at a time): wait for it, then for both replicas behind the LB.
  await dockerOk([
    'service',
    'update',
    '--detach',
    '--no-resolve-image',
    '--health-interval',
    '1s',
    '--health-timeout',
    '1s',
    '--health-retries',
    '3',
    stack.service('backend'),
  ]);
  await waitFor(
    async () => (await stack.inspect<UpdateStatus | null>('backend', '.UpdateStatus'))?.State === 'completed',
    {
      timeout: 120_000,
      interval: 500,
      what: 'the health-timing update completed',
    },
  );
  await stack.converged(CONVERGE_MS);

  const [victim] = await stack.running('backend');
  const loop = createRequestLoop(await stack.url('lb', 3001), ['/api/ready']);
  // Taken before the command: the freeze happens somewhere inside it, so the figure errs on the long side.
  const frozenAt = Date.now();
  await dockerOk(['kill', '-s', 'STOP', victim!.container]);
  frozen = victim!.container;
  const unhealthyAt = waitFor(
    async () =>
      (await dockerOk(['inspect', '--format', '{{.State.Health.Status}}', victim!.container])).trim() === 'unhealthy' &&
      Date.now(),
    { timeout: WAIT_MS, interval: 200, what: 'the frozen task unhealthy' },
  ).catch(() => NaN); // reported, not asserted: the replacement is what counts
  let replacement: Awaited<ReturnType<typeof stack.running>>;
  let took: number;
  try {
    replacement = await waitFor(
      async () => {
        const tasks = await stack.running('backend');
        return tasks.length === 2 && !tasks.some((task) => task.id === victim!.id) ? tasks : undefined;
      },
      { timeout: WAIT_MS, interval: 200, what: 'a new healthy task in place of the frozen one' },
    );
    // The engine's own time of the new task turning running, not when this loop saw it: on a loaded machine each
    // docker command here can take seconds.
    took = Math.max(...replacement.map((task) => task.since)) - frozenAt;
    frozen = '';
  } finally {
    await loop.stop();
  }
  const answers = loop.answers;
  assert.is(replacement.length, 2);
  const old = (await stack.tasks('backend')).find((task) => task.id === victim!.id);
  console.log(
    `  measured: unhealthy ${Number(await unhealthyAt) - frozenAt} ms after SIGSTOP; replaced ` +
      `(new task running, healthy) ${took} ms after; old task: ${old?.state} (${old?.error}); ` +
      `through the LB meanwhile ${answers.length} requests, ${failures(answers).length} not 200`,
  );
  assert.ok(took < REPLACED_WITHIN_MS, `replaced after ${took} ms`);
});

test.run();
