// The TLS suites served, as a scanner sees them (docs/access.md#tls-suites): `openssl s_client` offering one suite at
// a time to a real backend and frontend over HTTPS and to HAProxy run with deploy/swarm/lb/haproxy.cfg. TLS 1.2 takes
// only ECDHE with an AEAD cipher; a CBC suite (SHA-1 or SHA-256 MAC), CCM8 or ARIA is refused in the handshake; TLS 1.3
// works.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TLS12_CIPHERS } from '../lib/tls-setting.ts';
import { runCommand } from '../tools/child-process.ts';
import { freePort } from '../tools/free-port.ts';
import { waitFor } from './support/deadline.ts';
import { spawnProcess, stopAll, type Spawned } from './support/spawn-process.ts';
import { root, spawnService } from './support/spawn-service.ts';
import { createTestCa } from './support/test-ca.ts';
import { handshake } from './support/tls-handshake.ts';

const ca = createTestCa();
const cert = ca.issue('service');

// The test certificate's key is P-256, so these are the ECDSA names; each offered alone.
const REFUSED = [
  'ECDHE-ECDSA-AES128-SHA', // CBC with a SHA-1 MAC
  'ECDHE-ECDSA-AES256-SHA',
  'ECDHE-ECDSA-AES128-SHA256', // CBC with SHA-256
  'ECDHE-ECDSA-AES256-SHA384',
  'ECDHE-ECDSA-AES128-CCM8', // an 8-byte tag
  'ECDHE-ECDSA-ARIA128-GCM-SHA256',
];
const ACCEPTED = ['ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-ECDSA-CHACHA20-POLY1305'];

/** Every refused suite refused, every accepted one chosen, and TLS 1.3 spoken, on `port`. */
async function assertSuites(port: number) {
  for (const cipher of REFUSED) {
    const answer = await handshake(port, cipher);
    assert.is(answer.cipher, null, `${cipher} was accepted`);
    assert.match(answer.said, /handshake failure|no cipher/, `${cipher}: ${answer.said}`);
  }
  for (const cipher of ACCEPTED) assert.is((await handshake(port, cipher)).cipher, cipher, `${cipher} refused`);
  assert.match(String((await handshake(port, 'TLSv1.3')).cipher), /^TLS_AES_|^TLS_CHACHA20_/);
}

const node = suite('the Node services');
node.after(stopAll);

node('a backend over HTTPS: ECDHE with AEAD only on TLS 1.2, and TLS 1.3', async () => {
  const env = { TLS_CERT_FILE: cert.certFile, TLS_KEY_FILE: cert.keyFile };
  const backend = await spawnService('backend/main.ts', { env, ca: ca.ca });
  await assertSuites(Number(new URL(backend.url).port));
});
node('the frontend over HTTPS (the same lib/serve.ts): the same suites', async () => {
  const env = {
    TLS_CERT_FILE: cert.certFile,
    TLS_KEY_FILE: cert.keyFile,
    BACKEND_URL: 'http://127.0.0.1:9',
    DEVICE_URL: '',
  };
  const frontend = await spawnService('frontend/main.ts', { env, ca: ca.ca, waitPath: '/' });
  await assertSuites(Number(new URL(frontend.url).port));
});
node.run();

const haproxyCfg = readFileSync(join(root, 'deploy/swarm/lb/haproxy.cfg'), 'utf8');
const lb = suite<{ haproxy?: Spawned }>('HAProxy with deploy/swarm/lb/haproxy.cfg');
lb.after(async ({ haproxy }) => {
  await haproxy?.stop();
  ca.remove();
});

lb('the configuration names the same TLS 1.2 suites as the Node services', () => {
  const named = /^\s+ssl-default-bind-ciphers (\S+)$/m.exec(haproxyCfg)?.[1];
  assert.is(named, TLS12_CIPHERS);
});

lb('HAProxy serving 8443 with it: the same suites refused and accepted', async (context) => {
  // The file as shipped, each bind moved to a free local port; the certificate and its key in one PEM, as LB_TLS_CERT.
  const pem = join(ca.dir, 'lb.pem');
  writeFileSync(pem, cert.cert + cert.key);
  const ports: Record<string, number> = {};
  let text = haproxyCfg;
  for (const bound of ['3001', '8404', '8443']) {
    ports[bound] = await freePort();
    text = text.replace(`bind :${bound}`, `bind 127.0.0.1:${ports[bound]}`);
  }
  const file = join(ca.dir, 'haproxy.cfg');
  writeFileSync(file, text);
  const env = { ...process.env, LB_TLS_CERT: pem };
  const check = await runCommand('haproxy', ['-c', '-q', '-f', file], { env, timeoutMs: 10_000 });
  if (check.missing) throw new Error('haproxy is not installed: run bash scripts/setup.sh');
  assert.is(check.code, 0, `haproxy -c: ${check.stderr}${check.stdout}`);
  const haproxy = (context.haproxy = spawnProcess('haproxy', ['-db', '-f', file], { env }));
  await waitFor(async () => (await fetch(`http://127.0.0.1:${ports['8404']}/lb/health`)).ok, {
    timeout: 10_000,
    what: `haproxy serving its health page (it said: ${haproxy.lines.join(' | ')})`,
  });
  await assertSuites(ports['8443']!);
});
lb.run();
