// compose.yaml + compose.cloud.yaml: the public ports (8443 → backend 3001, 80 → frontend 3000) answer, beside
// the loopback ones. The test moves them to free ports (PUBLIC_BACKEND_PORT / PUBLIC_FRONTEND_PORT = 0), so it
// proves the mapping to the right service, not the numbers 8443 and 80 (compose.test.ts checks those).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ComposeStack, status } from './support/compose-stack.ts';

const test = suite('cloud ports');
const stack = new ComposeStack(import.meta.filename, ['compose.yaml', 'compose.cloud.yaml']);

test.before(async () => {
  await stack.down();
  await stack.build();
  await stack.up();
});
test.after(async () => {
  await stack.down();
});

const publicPort = async (service: string, port: number) => {
  const bindings = await stack.published(service, port);
  const open = bindings.find(
    (binding) => binding.hostIp === '0.0.0.0' || binding.hostIp === '' || binding.hostIp === '::',
  );
  assert.ok(open, `${service}:${port} has a public binding: ${JSON.stringify(bindings)}`);
  assert.ok(
    bindings.some((binding) => binding.hostIp === '127.0.0.1'),
    'the loopback port of compose.yaml stays',
  );
  return open!.hostPort;
};

test("the backend's public port (8443 in production) answers /api/health and /api/ready", async () => {
  const port = await publicPort('backend', 3001);
  assert.is(await status(`http://127.0.0.1:${port}/api/health`, 5000), 200);
  assert.is(await status(`http://127.0.0.1:${port}/api/ready`, 5000), 200);
});

test("the frontend's public port (80 in production) serves the status page", async () => {
  const port = await publicPort('frontend', 3000);
  const page = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(5000) });
  assert.is(page.status, 200);
  assert.match(await page.text(), /<html/i);
});

test.run();
