// The hostile suite for device data (docs/access.md#read-access), against the real backend over HTTPS: every data
// endpoint with no credential, another scheme, a wrong token and a rotated-out one gets 401 and lists nothing;
// both current tokens are let in; SIGHUP reloads the token file, after which a removed token is refused; the probes
// stay open and carry nothing private.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestCa } from './support/test-ca.ts';
import { httpsGet } from './support/https-get.ts';
import { spawnService, type Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { upgrade } from './support/device-socket.ts';
import { waitFor } from './support/deadline.ts';

const ca = createTestCa();
const cert = ca.issue('backend');
const CURRENT = 'read-token-current-5b1e0c9d7a';
const NEXT = 'read-token-next-2f8a6d4c1b90';
const ROTATED_OUT = 'read-token-rotated-out-9e7c3a';
const DEVICE_ID = 'hostile-suite-device';
const ENDPOINTS = ['/api/devices', '/api/devices?attention=5', `/api/readings?deviceId=${DEVICE_ID}`];
const tokensFile = join(ca.dir, 'read-tokens');
let backend: Service;

test.before(async () => {
  writeFileSync(tokensFile, `${CURRENT}\n${NEXT}\n`);
  backend = await spawnService('backend/main.ts', {
    env: {
      TLS_CERT_FILE: cert.certFile,
      TLS_KEY_FILE: cert.keyFile,
      READ_TOKENS: undefined, // the spawn's default, which READ_TOKENS_FILE may not join
      READ_TOKENS_FILE: tokensFile,
    },
    ca: ca.ca,
  });
  // A device connected, so there is something a leak would show.
  const socket = await upgrade(backend.url, { ca: ca.ca });
  if ('ws' in socket) socket.ws.send(JSON.stringify({ type: 'hello', deviceId: DEVICE_ID, session: 's1' }));
});
test.after(async () => {
  await stopAll();
  ca.remove();
});

const get = (path: string, authorization?: string) =>
  httpsGet(backend.url + path, { ca: ca.ca, headers: authorization ? { Authorization: authorization } : {} });

test('no credential, another scheme, a wrong or rotated-out token: 401, one line, nothing listed', async () => {
  const strangers: Array<[string | undefined, RegExp]> = [
    [undefined, /^Bearer realm="device data"$/],
    [`Basic ${Buffer.from(`reader:${CURRENT}`).toString('base64')}`, /^Bearer realm="device data"$/],
    ['Bearer', /^Bearer realm="device data"$/],
    ['Bearer guessed-token-0123456789', /error="invalid_token"/],
    [`Bearer ${ROTATED_OUT}`, /error="invalid_token"/],
    [`Bearer ${CURRENT}x`, /error="invalid_token"/],
    [`Bearer ${CURRENT.slice(0, -1)}`, /error="invalid_token"/],
  ];
  for (const path of ENDPOINTS) {
    for (const [authorization, challenge] of strangers) {
      const res = await get(path, authorization);
      const what = `${path} with ${authorization ?? 'nothing'}`;
      assert.is(res.status, 401, what);
      assert.match(String(res.headers['www-authenticate']), challenge, what);
      assert.is(res.body.trim().split('\n').length, 1, what);
      assert.type(JSON.parse(res.body).error, 'string');
      assert.not.ok(res.body.includes(DEVICE_ID) || res.body.includes(CURRENT), `${what} leaks: ${res.body}`);
    }
  }
});

test('either current token is let in (the database being absent, the answer is 503, not 401)', async () => {
  for (const token of [CURRENT, NEXT]) {
    const res = await get('/api/devices', `Bearer ${token}`);
    assert.ok(res.status !== 401, `${token}: ${res.status}`);
  }
});

test('the probes stay open and carry nothing private', async () => {
  for (const path of ['/api/health', '/api/ready']) {
    const res = await get(path);
    assert.ok([200, 503].includes(res.status), `${path}: ${res.status}`);
    assert.not.ok(res.body.includes(DEVICE_ID) || res.body.includes(CURRENT), res.body);
  }
  assert.is((await get('/metrics')).status, 404, 'no /metrics on the public port');
});

test('SIGHUP reloads READ_TOKENS_FILE: a removed token gets 401 from then on, the other still gets in', async () => {
  writeFileSync(tokensFile, `${CURRENT}\n`);
  const seen = backend.lines.length;
  backend.signal('SIGHUP');
  await waitFor(() => backend.lines.slice(seen).find((line) => line.includes('read tokens reloaded: 1 token')), {
    what: 'the reload line',
  });
  const removed = await get('/api/devices', `Bearer ${NEXT}`);
  assert.is(removed.status, 401);
  assert.match(String(removed.headers['www-authenticate']), /error="invalid_token"/);
  const kept = await get('/api/devices', `Bearer ${CURRENT}`);
  assert.ok(kept.status !== 401, `${CURRENT}: ${kept.status}`);
  assert.is(backend.child.exitCode, null, 'still running');
});

test('no token appears in any line the backend wrote', () => {
  for (const token of [CURRENT, NEXT, ROTATED_OUT]) {
    assert.not.ok(
      backend.lines.some((line) => line.includes(token)),
      token,
    );
  }
});

test.run();
