// compose.yaml + compose.cloud.yaml with secrets: the public backend port (8443, here a free one) is the load
// balancer's HTTPS only, with a certificate from a CA made with openssl; the device list needs a read token through
// it; `docker inspect` shows no token; every service's health check stays healthy; the loopback ports of
// compose.yaml stay for the runner-local smoke; the frontend's public port serves the page, the fleet hidden.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { ComposeStack, status } from './support/compose-stack.ts';
import { READ_TOKEN, writeDeploySecrets } from './support/deploy-secrets.ts';
import { httpsGet } from '../support/https-get.ts';

const test = suite('cloud ports');
const secrets = writeDeploySecrets('cloud');
const stack = new ComposeStack(import.meta.filename, ['compose.yaml', 'compose.cloud.yaml'], {
  SECRETS_DIR: secrets.dir,
});
const ca = readFileSync(secrets.caFile, 'utf8');

test.before(async () => {
  await stack.down();
  await stack.build(['swarm']);
  await stack.up();
});
test.after(async () => {
  await stack.down();
  secrets.remove();
});

const publicPort = async (service: string, port: number) => {
  const bindings = await stack.published(service, port);
  const open = bindings.find(
    (binding) => binding.hostIp === '0.0.0.0' || binding.hostIp === '' || binding.hostIp === '::',
  );
  assert.ok(open, `${service}:${port} has a public binding: ${JSON.stringify(bindings)}`);
  return open!.hostPort;
};

test('the public backend port (8443 in production) is HTTPS only: health, readiness; no plain HTTP', async () => {
  const base = `https://127.0.0.1:${await publicPort('lb', 8443)}`;
  assert.is((await httpsGet(`${base}/api/health`, { ca })).status, 200);
  assert.is((await httpsGet(`${base}/api/ready`, { ca })).status, 200);
  const plain = await fetch(`${base.replace('https:', 'http:')}/api/health`, {
    signal: AbortSignal.timeout(5000),
  }).then(
    (response) => `HTTP ${response.status}`,
    () => 'no HTTP answer',
  );
  assert.is(plain, 'no HTTP answer');
  const published = await stack.published('backend', 3001);
  assert.ok(
    published.every((binding) => binding.hostIp === '127.0.0.1'),
    'the backend itself: loopback only',
  );
});

test('through the public port, the device list answers 401 without the read token, 200 with it', async () => {
  const base = `https://127.0.0.1:${await publicPort('lb', 8443)}`;
  const stranger = await httpsGet(`${base}/api/devices`, { ca });
  assert.is(stranger.status, 401);
  assert.not.match(stranger.body, /deviceId/);
  const reader = await httpsGet(`${base}/api/devices`, { ca, headers: { authorization: `Bearer ${READ_TOKEN}` } });
  assert.is(reader.status, 200);
});

test('`docker inspect` of every container shows no token and no key; every one is healthy', async () => {
  for (const service of ['database', 'backend', 'frontend', 'lb']) {
    const id = await stack.container(service);
    const inspected = await stack.docker(['inspect', id]);
    assert.is(inspected.code, 0);
    for (const secret of secrets.secrets) assert.not.ok(inspected.stdout.includes(secret), `${service} shows a secret`);
    assert.is(await stack.inspect<string>(service, '.State.Health.Status'), 'healthy', service);
  }
});

test("the runner-local ports stay, and the frontend's public port serves the page", async () => {
  assert.is(await status(`${await stack.url('backend', 3001)}/api/health`, 5000), 200);
  const port = await publicPort('frontend', 3000);
  const page = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(5000) });
  assert.is(page.status, 200);
  assert.match(await page.text(), /<html/i);
  const document = (await (await fetch(`http://127.0.0.1:${port}/status.json`)).json()) as { operator: boolean };
  assert.is(document.operator, false);
});

test.run();
