// The services over real TLS (docs/access.md): HTTPS with TLS 1.2 or later from TLS_CERT_FILE + TLS_KEY_FILE, the
// device socket as wss://, and the start-up errors of a half-set pair.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request as httpRequest } from 'node:http';
import { createTestCa } from './support/test-ca.ts';
import { httpsGet } from './support/https-get.ts';
import { spawnService, type Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { expectRefusal } from './support/refused-start.ts';
import { upgrade } from './support/device-socket.ts';

const ca = createTestCa();
const stranger = createTestCa('a CA nobody trusts');
const cert = ca.issue('service');
const tlsEnv = { TLS_CERT_FILE: cert.certFile, TLS_KEY_FILE: cert.keyFile };

/** What a plain-HTTP request to `url`'s port gets: the status, or the error that ended it. */
function plainGet(url: string): Promise<string> {
  return new Promise((resolve) => {
    const req = httpRequest(url.replace(/^https:/, 'http:'), { agent: false, timeout: 5000 }, (res) => {
      res.resume();
      resolve(`status ${res.statusCode}`);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

const backend = suite<{ service?: Service }>('backend over HTTPS');
backend.before(async (context) => {
  context.service = await spawnService('backend/main.ts', { env: tlsEnv, ca: ca.ca });
});
backend.after(stopAll);

backend('GET /api/health answers 200 over TLS to a client trusting the CA', async ({ service }) => {
  const res = await httpsGet(`${service!.url}/api/health`, { ca: ca.ca });
  assert.is(res.status, 200);
  assert.is(JSON.parse(res.body).status, 'ok');
  const listening = service!.stdout.map((line) => JSON.parse(line)).find((line) => line.msg === 'backend listening');
  assert.is(listening?.scheme, 'https');
});

backend('TLS 1.1 and older are refused in the handshake', async ({ service }) => {
  const error = await httpsGet(`${service!.url}/api/health`, { ca: ca.ca, maxVersion: 'TLSv1.1' }).then(
    () => undefined,
    (e: NodeJS.ErrnoException) => e,
  );
  assert.ok(error, 'a TLS 1.1 client got an answer');
  assert.match(String(error.code), /ERR_SSL|EPROTO|ECONNRESET/);
});

backend('a client that does not trust the CA refuses the certificate', async ({ service }) => {
  const error = await httpsGet(`${service!.url}/api/health`, { ca: stranger.ca }).then(
    () => undefined,
    (e: NodeJS.ErrnoException) => e,
  );
  assert.is(error?.code, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
});

backend('there is no plain HTTP on the port', async ({ service }) => {
  const answer = await plainGet(`${service!.url}/api/health`);
  assert.not.match(answer, /^status 2/, answer);
});

backend('the device socket is wss:// with the device token', async ({ service }) => {
  const opened = await upgrade(service!.url, { ca: ca.ca });
  assert.is(opened.status, 101);
  if ('ws' in opened) opened.ws.close();
  const refused = await upgrade(service!.url, { ca: ca.ca, authorization: 'Bearer wrong-token-0123456789' });
  assert.is(refused.status, 401);
});
backend.run();

const frontend = suite('frontend over HTTPS');
frontend.after(stopAll);
frontend('GET / answers 200 over TLS and the start-up line says HTTPS', async () => {
  const service = await spawnService('frontend/main.ts', { env: tlsEnv, ca: ca.ca, waitPath: '/' });
  const res = await httpsGet(`${service.url}/`, { ca: ca.ca });
  assert.is(res.status, 200);
  assert.ok(
    service.stdout.some((line) => / over HTTPS; /.test(line)),
    service.stdout.join('\n'),
  );
});
frontend.run();

const refusals = suite('half a TLS setting');
refusals.after(async () => {
  await stopAll();
  ca.remove();
  stranger.remove();
});
for (const entry of ['backend/main.ts', 'device/main.ts', 'frontend/main.ts']) {
  refusals(`${entry}: TLS_CERT_FILE without TLS_KEY_FILE is a one-line start-up error`, async () => {
    const env = { TLS_CERT_FILE: cert.certFile, NODE_ENV: entry === 'device/main.ts' ? 'local' : 'production' };
    await expectRefusal(entry, { env }, `${entry.split('/')[0]}: TLS_CERT_FILE is set but TLS_KEY_FILE is not`);
  });
}
refusals.run();
