// A hung backend (SIGSTOP: the process is alive, its socket accepts, nothing answers) turns `unhealthy` after
// the health check's retries, and healthy again after SIGCONT. With a test-only override (interval 1 s,
// timeout 1 s, retries 3) this proves the timing rule the production values follow: a hang is caught by the
// check's *timeout*, and Docker says unhealthy after `retries` consecutive timed-out checks, i.e. within
// retries × (interval + timeout); for compose.yaml's 30 s / 10 s / 3 that is at most 2 minutes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { waitFor } from '../support/deadline.ts';
import { ComposeStack } from './support/compose-stack.ts';

const test = suite('sigstop');
const OVERRIDE = 'test/containers/fixtures/backend-health-every-second.yaml';
const stack = new ComposeStack(import.meta.filename, ['compose.yaml', OVERRIDE]);
const INTERVAL_MS = 1000;
const TIMEOUT_MS = 1000;
const RETRIES = 3;
// Each check is an exec in the container (measured 0.2–0.5 s to start on a busy 2-core machine, 1 s allowed).
const EXEC_MS = 1000;
// The first check after the STOP starts up to one interval later; then each failing check lasts its timeout
// and the next one starts an interval after it ended.
const UNHEALTHY_WITHIN_MS = INTERVAL_MS + RETRIES * (TIMEOUT_MS + EXEC_MS + INTERVAL_MS);
const HEALTHY_AGAIN_WITHIN_MS = INTERVAL_MS + TIMEOUT_MS + 2 * EXEC_MS;

interface Health {
  Status: string;
  FailingStreak: number;
  Log: { ExitCode: number; Output: string }[];
}

test.before(async () => {
  await stack.down();
  await stack.build();
  await stack.up();
});
test.after(async () => {
  const id = await stack.container('backend').catch(() => undefined);
  if (id) await stack.docker(['kill', '-s', 'CONT', id]); // never leave a stopped process behind
  await stack.down();
});

test(
  `SIGSTOP: unhealthy after ${RETRIES} timed-out checks, within ${UNHEALTHY_WITHIN_MS} ms; ` +
    `SIGCONT: healthy within ${HEALTHY_AGAIN_WITHIN_MS} ms`,
  async () => {
    const id = await stack.container('backend');
    assert.is((await stack.inspect<Health>('backend', '.State.Health')).Status, 'healthy');
    const stop = await stack.docker(['kill', '-s', 'STOP', id]);
    assert.is(stop.code, 0, stop.stderr);
    const stoppedAt = Date.now();
    const unhealthy = await waitFor(
      async () => {
        const health = await stack.inspect<Health>('backend', '.State.Health');
        return health.Status === 'unhealthy' ? health : undefined;
      },
      { timeout: UNHEALTHY_WITHIN_MS, interval: 100, what: 'backend unhealthy' },
    );
    const took = Date.now() - stoppedAt;
    assert.ok(unhealthy.FailingStreak >= RETRIES, `failing streak ${unhealthy.FailingStreak}`);
    // Docker writes "Health check exceeded timeout (1s)" for a check it had to cut off.
    const failures = unhealthy.Log.slice(-RETRIES);
    assert.ok(
      failures.every((entry) => entry.ExitCode !== 0),
      JSON.stringify(failures),
    );
    assert.ok(took >= (RETRIES - 1) * INTERVAL_MS, `unhealthy only after the retries (${took} ms)`);
    console.log(`  unhealthy ${took} ms after SIGSTOP; last check: ${JSON.stringify(failures.at(-1)?.Output.trim())}`);

    const cont = await stack.docker(['kill', '-s', 'CONT', id]);
    assert.is(cont.code, 0, cont.stderr);
    const continuedAt = Date.now();
    await waitFor(async () => (await stack.inspect<Health>('backend', '.State.Health')).Status === 'healthy', {
      timeout: HEALTHY_AGAIN_WITHIN_MS,
      interval: 100,
      what: 'backend healthy again',
    });
    console.log(`  healthy ${Date.now() - continuedAt} ms after SIGCONT`);
  },
);

test.run();
