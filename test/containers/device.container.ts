// compose.yaml with `--profile device`: the device service (serial emulator) joins, its HEALTHCHECK runs as
// uid 1000 and passes, and the smoke from the host gives 5/5 PASS against the published ports.
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../support/run-smoke-cli.ts';
import { ComposeStack } from './support/compose-stack.ts';
import { assertHealthyAsNode } from './support/node-health.ts';

const test = suite('device profile');
// The backend refuses device sockets without the shared token, and the device would then not be ready.
const DEVICE_TOKEN = randomBytes(24).toString('hex');
const stack = new ComposeStack(import.meta.filename, ['compose.yaml'], {
  DEVICE_URL: 'http://device:3003',
  DEVICE_TOKEN,
});
const PROFILES = ['device'];

test.before(async () => {
  await stack.down();
  await stack.build(PROFILES);
  await stack.up(PROFILES);
});
test.after(async () => {
  await stack.down();
});

test('the device image checks its health as uid 1000, exit 0', async () => {
  await assertHealthyAsNode(stack, 'device');
});

test('smoke from the host with the device: 5/5 PASS', async () => {
  const args = [
    '--frontend',
    await stack.url('frontend', 3000),
    '--backend',
    await stack.url('backend', 3001),
    '--device',
    await stack.url('device', 3003),
  ];
  // `up --wait` waits for health, and the device's HEALTHCHECK is its liveness (a device whose backend is away must
  // not be restarted): its socket to the backend may open a moment later, and until then its /api/ready is 503
  // `backend=disconnected`. `--wait`, as a deploy runs it.
  const settings = ['--artifacts', '.tmp/container-tests/device', '--timeout', '15000', '--wait', '30000'];
  const run = await runCli([...args, ...settings]);
  // A readiness check that failed names what it waits for; the services' own lines say why.
  const logs = run.code === 0 ? [] : await Promise.all(['backend', 'device'].map((s) => stack.lastLogs(s)));
  assert.is(run.code, 0, [...run.stdout, ...run.stderr, ...logs].join('\n'));
  assert.ok(
    run.stdout.some((line) => /\b5\/5\b/.test(line) && /PASS/.test(line)),
    run.stdout.join('\n'),
  );
});

test('down -v removes the device profile too', async () => {
  assert.is((await stack.down()).code, 0);
  const left = await stack.docker(['ps', '-a', '-q', '--filter', `label=com.docker.compose.project=${stack.project}`]);
  assert.is(left.stdout.trim(), '');
});

test.run();
