// A compose `up` that fails says why: the error names the service that is not healthy and carries its last
// log lines, so a red CI run shows the cause without another `docker compose logs`.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ComposeStack } from './support/compose-stack.ts';

const test = suite('failing up');
const stack = new ComposeStack(import.meta.filename, [
  'compose.yaml',
  'test/containers/fixtures/backend-never-healthy.yaml',
]);

test.before(async () => {
  await stack.down();
  await stack.build();
});
test.after(async () => {
  await stack.down();
});

test(
  'up with a backend that is never healthy: ' + 'rejected, naming the backend and showing its last log lines',
  async () => {
    const error = await stack.up().then(
      () => undefined,
      (error: Error) => error,
    );
    assert.ok(error, 'up failed');
    assert.match(error.message, /^docker compose up failed: /);
    assert.match(error.message, /--- backend \(running unhealthy\), last log lines:/);
    assert.match(error.message, /backend listening/, "the service's own log lines are shown");
    assert.not.match(error.message, /--- database/, 'the healthy database is not blamed');
  },
);

test.run();
