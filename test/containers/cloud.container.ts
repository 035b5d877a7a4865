// compose.yaml + compose.cloud.yaml with secrets and the device profile: the public backend port (8443, here a free
// one) is the load balancer's HTTPS only, with a certificate from a CA made with openssl; the device's readings,
// sent with its token from a secret file, are stored and read back through it with a read token; `docker inspect`
// shows no token and no key; every service's health check stays healthy; the loopback ports of compose.yaml stay for
// the runner-local smoke; the frontend's public port serves the page, the fleet hidden, and refuses sign-in, which
// works on its HTTPS port (443, here a free one).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { ComposeStack, status } from './support/compose-stack.ts';
import { OPERATOR_TOKEN, READ_TOKEN, writeDeploySecrets } from './support/deploy-secrets.ts';
import { httpsGet } from '../support/https-get.ts';
import { waitFor } from '../support/deadline.ts';
import { freePort } from '../../tools/free-port.ts';

const test = suite('cloud ports');
const secrets = writeDeploySecrets('cloud');
// A port named up front, not 0: the frontend names it when it refuses a sign-in on the plain port.
const frontendHttpsPort = await freePort('0.0.0.0');
const stack = new ComposeStack(import.meta.filename, ['compose.yaml', 'compose.cloud.yaml'], {
  SECRETS_DIR: secrets.dir,
  PUBLIC_FRONTEND_HTTPS_PORT: String(frontendHttpsPort),
});
const ca = readFileSync(secrets.caFile, 'utf8');
/** The emulator's readings, under compose.yaml's DEVICE_ID. */
const DEVICE_ID = 'device';

test.before(async () => {
  await stack.down();
  await stack.build(['swarm', 'device']);
  await stack.up(['device']);
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

test("the device's readings are stored and read back through the public port with a read token", async () => {
  const url = `https://127.0.0.1:${await publicPort('lb', 8443)}/api/readings?deviceId=${DEVICE_ID}&limit=5`;
  const stranger = await httpsGet(url, { ca });
  assert.is(stranger.status, 401);
  assert.not.match(stranger.body, /readings/);
  const headers = { authorization: `Bearer ${READ_TOKEN}` };
  // The emulator sends a line a second; the first reaches the database once the device's socket is up.
  const readings = await waitFor(
    async () => {
      const answer = await httpsGet(url, { ca, headers });
      assert.is(answer.status, 200, answer.body);
      const { readings } = JSON.parse(answer.body) as { readings: { deviceId: string; seq: number }[] };
      return readings.length > 0 ? readings : undefined;
    },
    { timeout: 30_000, interval: 500, what: `readings of ${DEVICE_ID} through the load balancer` },
  );
  assert.ok(
    readings.every((reading) => reading.deviceId === DEVICE_ID),
    JSON.stringify(readings),
  );
});

test('`docker inspect` of every container shows no token and no key; every one is healthy', async () => {
  for (const service of ['database', 'backend', 'frontend', 'lb', 'device']) {
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

test("sign-in on the frontend's plain port: 403, one line naming the public HTTPS port", async () => {
  const plain = `http://127.0.0.1:${await publicPort('frontend', 3000)}`;
  const refused = await fetch(`${plain}/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: plain, 'x-forwarded-proto': 'https' },
    body: new URLSearchParams({ token: OPERATOR_TOKEN }).toString(),
    redirect: 'manual',
    signal: AbortSignal.timeout(5000),
  });
  assert.is(refused.status, 403);
  assert.is(refused.headers.get('set-cookie'), null);
  assert.match(await refused.text(), new RegExp(`^Sign-in needs HTTPS: open https:// on port ${frontendHttpsPort} `));
});

test("the frontend's HTTPS port (443 in production): the page, and an operator's sign-in shows the fleet", async () => {
  assert.is(await publicPort('frontend', 3443), frontendHttpsPort);
  const base = `https://127.0.0.1:${frontendHttpsPort}`;
  assert.is((await httpsGet(`${base}/`, { ca })).status, 200);
  const signIn = await httpsGet(`${base}/sign-in`, {
    ca,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
    body: new URLSearchParams({ token: OPERATOR_TOKEN }).toString(),
  });
  assert.is(signIn.status, 303, signIn.body);
  const cookie = String(signIn.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
  assert.match(cookie, /^__Host-operator=/);
  const document = JSON.parse((await httpsGet(`${base}/status.json`, { ca, headers: { cookie } })).body) as {
    operator: boolean;
  };
  assert.is(document.operator, true);
});

test.run();
