// The status page in real Chromium, plain on PORT and HTTPS on HTTPS_PORT with a CA made by openssl, as the cloud
// deployment runs it: a stranger sees the services' health and no device, no reading, in the DOM or in any
// response, on either port; sign-in is refused on the plain port; an operator who signs in over HTTPS sees the fleet.
import { createHash, X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'puppeteer-core';
import { launchBrowser, type LaunchedBrowser } from '../smoke/browser.ts';
import { signInOperator } from '../smoke/operator-sign-in.ts';
import { healthyBody, readyBody } from './support/health-bodies.ts';
import { listen, type Listening } from './support/listen.ts';
import { spawnService, type Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { createTestCa, type TestCa } from './support/test-ca.ts';
import { openWatchedPage } from './support/watched-page.ts';
import { waitFor } from './support/deadline.ts';

const OPERATOR = 'operator-token-browser-0123456789';
const READ_TOKEN = 'frontend-read-token-0123456789abcdef';
const SECRET_DEVICE = 'vault-sensor-42';
const SECRET_VALUE = 'pressure_kpa=101.7';
const reading = { seq: 7, timestamp: new Date().toISOString(), value: SECRET_VALUE };

let ca: TestCa;
let backend: Listening;
let frontend: Service;
let launched: LaunchedBrowser;
let base: string;
/** The same frontend's plain-HTTP port: what a stranger gets on port 80. */
let plain: string;
let httpsPort: number;
let problems: string[];

/** Chromium trusts exactly this certificate's key (the test CA's server key), and no other unknown one. */
const spkiHash = (certPem: string) =>
  createHash('sha256')
    .update(new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');

test.before(async () => {
  ca = createTestCa();
  const cert = ca.issue('frontend');
  const operators = join(ca.dir, 'operator-tokens');
  const readToken = join(ca.dir, 'read-token');
  writeFileSync(operators, `# rotated in 2026\nan-older-operator-token-000000\n${OPERATOR}\n`);
  writeFileSync(readToken, `${READ_TOKEN}\n`);
  // A backend that lists its device only to the read token, as the real one does outside local mode.
  backend = await listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const ok = req.headers.authorization === `Bearer ${READ_TOKEN}`;
    const body =
      path === '/api/health'
        ? healthyBody()
        : path === '/api/ready'
          ? readyBody()
          : !ok
            ? undefined
            : path === '/api/devices'
              ? { devices: [{ deviceId: SECRET_DEVICE, connected: true, lastReading: reading }], total: 1 }
              : { readings: [reading] };
    res
      .writeHead(body ? 200 : 401, { 'content-type': 'application/json' })
      .end(JSON.stringify(body ?? { error: 'no' }));
  });
  frontend = await spawnService('frontend/main.ts', {
    env: {
      HTTPS_PORT: '0', // the kernel's choice, read back from the start-up line
      BACKEND_URL: backend.url,
      DEVICE_URL: '',
      TLS_CERT_FILE: cert.certFile,
      TLS_KEY_FILE: cert.keyFile,
      OPERATOR_TOKENS_FILE: operators,
      BACKEND_READ_TOKEN_FILE: readToken,
      BACKEND_READ_TOKEN: undefined, // spawnService's default; the file is what a deployment mounts
    },
    waitPath: false,
  });
  httpsPort = frontend.httpsPort!;
  base = `https://localhost:${httpsPort}`;
  plain = `http://localhost:${frontend.port}`;
  launched = await launchBrowser({ extraArgs: [`--ignore-certificate-errors-spki-list=${spkiHash(cert.cert)}`] });
  await waitFor(() => frontend.lines.some((line) => line.includes('listening')), {
    timeout: 15000,
    what: 'frontend up',
  });
});

test.after(async () => {
  await launched?.close();
  await stopAll();
  await backend?.close();
  ca?.remove();
});

/** Every response body the page received, for the "in no response" check. */
function recordBodies(page: Page): string[] {
  const bodies: string[] = [];
  page.on('response', (r) => {
    void r.text().then(
      (text) => bodies.push(text),
      () => {},
    );
  });
  return bodies;
}

const boardText = (page: Page) =>
  page.evaluate(() =>
    document.querySelector('#board')?.getAttribute('data-checked-at') ? document.body.innerText : '',
  );

/** A stranger's visit to `origin`: the services' health on the board, no device and no reading anywhere. */
async function strangerSeesHealthOnly(origin: string) {
  problems = [];
  const page = await openWatchedPage(launched.browser, problems);
  const bodies = recordBodies(page);
  const res = await page.goto(`${origin}/`, { waitUntil: 'load' });
  // 304: the browser revalidated the page it loaded in an earlier test (static files carry an ETag).
  assert.ok([200, 304].includes(res?.status() ?? 0), `status ${res?.status()}`);
  await page.waitForFunction(() => !!document.querySelector('#board')?.getAttribute('data-checked-at'), {
    timeout: 10000,
  });
  const text = await boardText(page);
  assert.match(text, /Backend/);
  const html = await page.content();
  for (const secret of [SECRET_DEVICE, SECRET_VALUE]) {
    assert.not.ok(html.includes(secret), `DOM holds ${secret}`);
    assert.not.ok(
      bodies.some((body) => body.includes(secret)),
      `a response holds ${secret}`,
    );
  }
  assert.ok(
    bodies.some((body) => body.includes('"operator":false')),
    'the page read /status.json',
  );
  assert.equal(problems, []);
  await page.close();
}

test("a stranger over HTTPS sees the services' health and no fleet, in the DOM or any response", async () => {
  await strangerSeesHealthOnly(base);
});

test("a stranger on the plain port sees the services' health and no fleet", async () => {
  await strangerSeesHealthOnly(plain);
});

test('plain port: sign-in refused in one line naming the HTTPS port; X-Forwarded-Proto not believed', async () => {
  problems = [];
  const page = await openWatchedPage(launched.browser, problems);
  const res = await page.goto(`${plain}/sign-in`, { waitUntil: 'load' });
  assert.is(res?.status(), 403);
  const line = await res!.text();
  assert.match(line, new RegExp(`^Sign-in needs HTTPS: open https:// on port ${httpsPort} of this host[^\\n]*\\n$`));
  assert.is(await page.$('#token'), null);
  await page.close();
  // What a client on port 80 could claim about a proxy in front: a right token, "https" in every header.
  const posted = await fetch(`${plain}/sign-in`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: plain,
      'x-forwarded-proto': 'https',
      forwarded: 'proto=https',
    },
    body: new URLSearchParams({ token: OPERATOR }).toString(),
    redirect: 'manual',
    signal: AbortSignal.timeout(10_000),
  });
  assert.is(posted.status, 403);
  assert.is(posted.headers.get('set-cookie'), null);
  assert.match(await posted.text(), new RegExp(`on port ${httpsPort} `));
});

test('an operator signs in with a token over HTTPS and sees the fleet', async () => {
  problems = [];
  const page = await openWatchedPage(launched.browser, problems);
  await page.goto(`${base}/sign-in`, { waitUntil: 'load' });
  await page.type('#token', OPERATOR);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
  assert.is(new URL(page.url()).pathname, '/');
  const cookies = await page.cookies();
  const session = cookies.find((c) => c.name === '__Host-operator');
  assert.ok(session?.httpOnly && session.secure && session.sameSite === 'Strict', JSON.stringify(session));
  assert.not.ok(session!.value.includes(OPERATOR));
  await page.waitForFunction((id) => document.body.innerText.includes(id), { timeout: 10000 }, SECRET_DEVICE);
  assert.equal(problems, []);
  await page.close();
});

test("the signed-in operator's browser on the plain port still gets the stranger's view", async () => {
  await strangerSeesHealthOnly(plain);
});

test("the smoke's operator sign-in: the LOAD tab signs in with the token and loads the operator view", async () => {
  problems = [];
  const page = await openWatchedPage(launched.browser, problems);
  // The browser kept the session of the test before: start signed out.
  await page.deleteCookie(...(await page.cookies(base)));
  const refused = await signInOperator(page, `${base}/`, 'not-an-operator-token-000000', 10_000);
  assert.is(refused, 'operator sign-in refused (HTTP 401): the token is not one of OPERATOR_TOKENS_FILE');
  assert.is(await signInOperator(page, `${base}/`, OPERATOR, 10_000), null);
  await page.goto(`${base}/`, { waitUntil: 'load' });
  await page.waitForFunction((id) => document.body.innerText.includes(id), { timeout: 10000 }, SECRET_DEVICE);
  await page.close();
});

test.run();
