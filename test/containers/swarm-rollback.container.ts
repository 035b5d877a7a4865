// A broken release: a backend whose MONGODB_URI it refuses (port 99999: one line, exit 1) cannot start. Swarm
// (failure_action: rollback) rolls the update back by itself while requests through the load balancer keep
// succeeding, and the service ends with UpdateStatus.State = rollback_completed. What the rollback does to the
// replicas that were never updated (moby/moby#43081: a start-first rollback replaces healthy tasks) is printed.
// The Engine's own swarm (made one if it is none, never left: support/swarm.ts), one file at a time:
// test-exclusive: engine-swarm
import * as assert from 'uvu/assert';
import { CONVERGE_MS, swarmSuite } from './support/swarm-suite.ts';
import { waitFor } from '../support/deadline.ts';
import { dockerOk } from './support/swarm.ts';
import type { UpdateStatus } from './support/swarm-stack.ts';
import { createRequestLoop, describeFailures, failures } from './support/request-loop.ts';

const { test, swarmTest, stack } = await swarmSuite('swarm automatic rollback', import.meta.filename);
const ROLLBACK_MS = 120_000;
const GOOD_URI = 'MONGODB_URI=mongodb://database:27017/service-health-kit';

swarmTest('a release whose backend cannot start is rolled back by Swarm; no request through the LB fails', async () => {
  const lb = await stack.url('lb', 3001);
  const before = (await stack.running('backend')).map((task) => task.id);
  const loop = createRequestLoop(lb, ['/api/ready', '/api/health']);
  const startedAt = Date.now();
  const states: string[] = [];
  try {
    await dockerOk([
      'service',
      'update',
      '--detach',
      '--no-resolve-image',
      '--env-add',
      'MONGODB_URI=mongodb://database:99999/service-health-kit',
      stack.service('backend'),
    ]);
    await waitFor(
      async () => {
        const state = (await stack.inspect<UpdateStatus | null>('backend', '.UpdateStatus'))?.State ?? '';
        if (states.at(-1) !== state) states.push(state);
        return state === 'rollback_completed';
      },
      { timeout: ROLLBACK_MS, interval: 250, what: 'UpdateStatus.State = rollback_completed' },
    );
  } finally {
    await loop.stop();
  }
  const tookMs = Date.now() - startedAt;
  const answers = loop.answers;
  assert.is(failures(answers).length, 0, describeFailures(answers));
  const env = await stack.inspect<string[]>('backend', '.Spec.TaskTemplate.ContainerSpec.Env');
  assert.ok(env.includes(GOOD_URI), env.join(' '));
  await stack.converged(CONVERGE_MS);
  const ready = await fetch(`${lb}/api/ready`);
  assert.is(ready.status, 200);
  const failed = (await stack.tasks('backend')).filter((task) => task.state === 'failed');
  assert.ok(failed.length >= 1, 'the broken release started at least one task, which failed');
  const after = (await stack.running('backend')).map((task) => task.id);
  const replaced = before.filter((id) => !after.includes(id));
  console.log(
    `  measured: rollback_completed ${tookMs} ms after the update (states: ${states.join(' → ')}); ` +
      `${answers.length} requests through the LB, 0 failed; ${failed.length} task(s) of the broken release failed ` +
      `(${failed[0]?.error}); ${replaced.length} of the ${before.length} healthy replicas were replaced ` +
      'by the rollback',
  );
});

test.run();
