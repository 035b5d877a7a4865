import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingHttpHeaders } from 'node:http';
import { createApp, type FrontendDeps } from './app.ts';
import { SESSION_COOKIE, wrongTokensLine, type OperatorAccess } from './operator-access.ts';
import { listen, type Listening } from '../test/support/listen.ts';
import { healthyBody, readyBody } from '../test/support/health-bodies.ts';
import type { StatusDocument } from './status-document.ts';

const OPERATOR = 'operator-token-0123456789abcdef';
const READ_TOKEN = 'backend-read-token-fedcba9876543210';
const DEVICE = {
  deviceId: 'boiler-7',
  connected: true,
  lastReading: { seq: 1, timestamp: '2026-01-01T10:00:00Z', value: 'temperature_c=21.5' },
};

let backend: Listening;
let seen: IncomingHttpHeaders[];

test.before(async () => {
  seen = [];
  // A backend that lists its device only to the frontend's read token, as the real one does outside local mode.
  backend = await listen((req, res) => {
    seen.push(req.headers);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const authorized = req.headers.authorization === `Bearer ${READ_TOKEN}`;
    const [status, body] =
      path === '/api/health'
        ? [200, healthyBody()]
        : path === '/api/ready'
          ? [200, readyBody()]
          : !authorized
            ? [401, { error: 'read credential required' }]
            : path === '/api/devices'
              ? [200, { devices: [DEVICE], total: 1 }]
              : [200, { readings: [DEVICE.lastReading] }];
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
});
test.after(async () => {
  await backend.close();
});

/** The app with operator access, a backend that answers and `more` of its settings (an HTTPS port, a counter …). */
const app = (
  access: OperatorAccess = { tokens: [OPERATOR] },
  log: (line: string) => void = () => {},
  more: Partial<FrontendDeps> = {},
) =>
  createApp({
    version: 'rel-7',
    backendUrl: backend.url,
    timeoutMs: 1000,
    access,
    backendReadToken: READ_TOKEN,
    log,
    ...more,
  });

/** What @hono/node-server passes as the env of a request that came over TLS, from `remoteAddress`. */
const tlsFrom = (remoteAddress: string) => ({ incoming: { socket: { encrypted: true, remoteAddress } } });
const TLS = tlsFrom('127.0.0.1');

const form = (token: string, origin?: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...(origin ? { origin } : {}) },
  body: new URLSearchParams({ token }).toString(),
});

async function signIn(a: ReturnType<typeof app>, token = OPERATOR): Promise<string> {
  const res = await a.request('https://status.example/sign-in', form(token, 'https://status.example'), TLS);
  assert.is(res.status, 303, await res.clone().text());
  const cookie = res.headers.get('set-cookie') ?? '';
  return cookie.split(';')[0]!;
}

test("a stranger's /status.json has the services' health and no fleet, no reading", async () => {
  const res = await app().request('/status.json');
  assert.is(res.status, 200);
  const text = await res.text();
  const doc = JSON.parse(text) as StatusDocument;
  assert.is(doc.operator, false);
  assert.is(doc.services.backend.readiness, 'ready');
  assert.equal(doc.readings.devices, []);
  assert.is(doc.readings.latest, null);
  assert.match(doc.readings.problem ?? '', /sign in as an operator/);
  assert.not.ok(text.includes('boiler-7') || text.includes('temperature_c'), text);
  // The frontend did read the fleet with its token: what the stranger misses is withheld, not broken.
  assert.ok(seen.some((h) => h.authorization === `Bearer ${READ_TOKEN}`));
});

test('an operator signed in over TLS sees the fleet; the cookie is HttpOnly, Secure, SameSite=Strict', async () => {
  const a = app();
  const res = await a.request('https://status.example/sign-in', form(OPERATOR, 'https://status.example'), TLS);
  assert.is(res.status, 303);
  assert.is(res.headers.get('location'), '/');
  const setCookie = res.headers.get('set-cookie') ?? '';
  assert.match(setCookie, new RegExp(`^${SESSION_COOKIE}=`));
  for (const attribute of ['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/'])
    assert.ok(setCookie.includes(attribute), setCookie);
  assert.not.ok(setCookie.includes(OPERATOR), 'the cookie is not the token');
  const cookie = setCookie.split(';')[0]!;
  const doc = (await (await a.request('/status.json', { headers: { cookie } }, TLS)).json()) as StatusDocument;
  assert.is(doc.operator, true);
  // The same cookie on a plain-HTTP connection gets the stranger's view: the fleet never travels in the clear.
  const plain = (await (await a.request('/status.json', { headers: { cookie } })).json()) as StatusDocument;
  assert.is(plain.operator, false);
  assert.equal(plain.readings.devices, []);
  assert.equal(
    doc.readings.devices.map((d) => d.deviceId),
    ['boiler-7'],
  );
  assert.is(doc.readings.latest?.value, 'temperature_c=21.5');
});

test('a wrong or rotated-out token gets 401 and no cookie; a forged cookie sees nothing', async () => {
  for (const token of ['', 'guess-guess-guess-guess', `${OPERATOR}x`]) {
    const res = await app().request('https://status.example/sign-in', form(token, 'https://status.example'), TLS);
    assert.is(res.status, 401, token);
    assert.is(res.headers.get('set-cookie'), null);
  }
  const cookie = await signIn(app({ tokens: [OPERATOR] }));
  const rotated = app({ tokens: ['a-newer-operator-token-000000000'] });
  const doc = (await (await rotated.request('/status.json', { headers: { cookie } }, TLS)).json()) as StatusDocument;
  assert.is(doc.operator, false);
  const forged = `${SESSION_COOKIE}=${Date.now() + 1e9}.AAAA`;
  assert.is(
    ((await (await app().request('/status.json', { headers: { cookie: forged } }, TLS)).json()) as StatusDocument)
      .operator,
    false,
  );
});

test('over plain HTTP the form is not shown and a posted token is refused unread: 403, one line', async () => {
  const page = await app().request('/sign-in');
  assert.is(page.status, 403);
  assert.is(
    await page.text(),
    'Sign-in needs HTTPS, and this frontend serves none: set HTTPS_PORT, TLS_CERT_FILE and TLS_KEY_FILE.\n',
  );
  const post = await app().request('http://status.example/sign-in', form(OPERATOR, 'http://status.example'));
  assert.is(post.status, 403);
  assert.is(post.headers.get('set-cookie'), null);
});

test("the refusal names the HTTPS port; X-Forwarded-Proto, anyone's to send on port 80, changes nothing", async () => {
  const a = app({ tokens: [OPERATOR] }, () => {}, { httpsPort: () => 443 });
  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-ssl': 'on', forwarded: 'proto=https' };
  const page = await a.request('http://status.example/sign-in', { headers: forwarded });
  assert.is(page.status, 403);
  const line = await page.text();
  assert.match(line, /^Sign-in needs HTTPS: open https:\/\/ on port 443 of this host[^\n]*\n$/);
  assert.not.match(line, /<input/);
  const posted = form(OPERATOR, 'http://status.example');
  const post = await a.request('http://status.example/sign-in', {
    ...posted,
    headers: { ...posted.headers, ...forwarded },
  });
  assert.is(post.status, 403);
  assert.is(post.headers.get('set-cookie'), null);
});

test('a sign-in posted from another site is refused', async () => {
  const res = await app().request('https://status.example/sign-in', form(OPERATOR, 'https://evil.example'), TLS);
  assert.is(res.status, 403);
  assert.is(res.headers.get('set-cookie'), null);
});

test('local mode: everyone sees the fleet, and the sign-in page says so', async () => {
  const a = app('open');
  const doc = (await (await a.request('/status.json')).json()) as StatusDocument;
  assert.is(doc.operator, true);
  assert.equal(
    doc.readings.devices.map((d) => d.deviceId),
    ['boiler-7'],
  );
  const page = await a.request('/sign-in');
  assert.is(page.status, 200);
  assert.match(await page.text(), /Local mode/);
});

const operatorSees = async (a: ReturnType<typeof app>, cookie: string) =>
  ((await (await a.request('/status.json', { headers: { cookie } }, TLS)).json()) as StatusDocument).operator;

const signOut = (a: ReturnType<typeof app>, cookie: string) =>
  a.request(
    'https://status.example/sign-out',
    { method: 'POST', headers: { origin: 'https://status.example', cookie } },
    TLS,
  );

test('sign-out ends the session on the server: the same cookie replayed is a stranger; a reload keeps it', async () => {
  const a = app();
  const cookie = await signIn(a);
  const other = await signIn(a);
  assert.ok(await operatorSees(a, cookie));
  assert.ok(await operatorSees(a, cookie), 'a reload, the same cookie again, is still the operator');
  assert.is((await signOut(a, cookie)).status, 303);
  assert.is(await operatorSees(a, cookie), false);
  assert.ok(await operatorSees(a, other), "another session's cookie is not ended by it");
  const page = await a.request('https://status.example/sign-in', { headers: { cookie } }, TLS);
  assert.match(await page.text(), /<input/, 'the sign-in form again, not "signed in"');
});

test('a token removed from the list and a restart: none of its sessions holds, nor a forged one', async () => {
  const cookie = await signIn(app({ tokens: [OPERATOR, 'a-kept-operator-token-5f0c2a9e41d8'] }));
  const restarted = app({ tokens: ['a-kept-operator-token-5f0c2a9e41d8'] });
  assert.is(await operatorSees(restarted, cookie), false);
  const value = cookie.split('=')[1]!;
  for (const forged of [`${value}x`, value.slice(1), `${Date.now() + 1e9}.${value}`])
    assert.is(await operatorSees(restarted, `${SESSION_COOKIE}=${forged}`), false, forged);
});

test('a sign-in refused for its origin says why in one line, with the header curl lacks', async () => {
  const noOrigin = await app().request(
    'https://status.example/sign-in',
    { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${OPERATOR}` },
    TLS,
  );
  assert.is(noOrigin.status, 403);
  assert.is(
    await noOrigin.text(),
    "sign-in refused: the form must come from this site's own page (https://status.example), and this request " +
      "has no Origin header; curl sends none: add -H 'Origin: https://status.example'.\n",
  );
  const other = await app().request('https://status.example/sign-in', form(OPERATOR, 'https://evil.example'), TLS);
  assert.match(await other.text(), /^sign-in refused: [^\n]*this request has Origin "https:\/\/evil.example"; curl/);
});

test('curl on the plain port, no Origin: the documented line naming the HTTPS port, not a bare word', async () => {
  const a = app({ tokens: [OPERATOR] }, () => {}, { httpsPort: () => 3443 });
  const post = await a.request('http://status.example/sign-in', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `token=${OPERATOR}`,
  });
  assert.is(post.status, 403);
  assert.match(await post.text(), /^Sign-in needs HTTPS: open https:\/\/ on port 3443 of this host[^\n]*\n$/);
});

test('guessing from one address: 429 with Retry-After past ten, the right token still works elsewhere', async () => {
  const lines: string[] = [];
  const a = app(undefined, (line) => lines.push(line));
  const guess = (token: string, from: string) =>
    a.request('https://status.example/sign-in', form(token, 'https://status.example'), tlsFrom(from));
  const statuses = [];
  for (let i = 0; i < 12; i++) statuses.push((await guess(`guess-${i}-0123456789abcdef`, '10.9.9.9')).status);
  assert.equal(statuses, [...Array(10).fill(401), 429, 429]);
  const limited = await guess(OPERATOR, '10.9.9.9');
  assert.is(limited.status, 429, 'not even the right token is checked from the guessing address');
  assert.match(limited.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  assert.match(await limited.text(), /^Too many wrong tokens from this address: try again in \d+ s\.\n$/);
  assert.is((await guess(OPERATOR, '10.1.1.1')).status, 303);
  const warned = lines.filter((line) => line.includes('wrong operator token'));
  assert.ok(warned.length >= 1 && warned.length < 10, lines.join('\n'));
  assert.match(warned[0]!, /^frontend: 1 wrong operator token at \/sign-in \(latest from 10\.9\.9\.9; 1 in all\)$/);
  assert.not.ok(
    lines.some((line) => line.includes('guess-')),
    'no guessed token in the log',
  );
});

test('the summed warning counts wrong tokens in words: one token, then tokens', () => {
  // The first is logged alone; the rest of each 5 s interval are summed into one line (lib/summed-warning.ts).
  assert.is(wrongTokensLine(1), '1 wrong operator token at /sign-in');
  assert.is(wrongTokensLine(2), '2 wrong operator tokens at /sign-in');
  assert.is(wrongTokensLine(140), '140 wrong operator tokens at /sign-in');
});

test('each refused sign-in is counted by its reason; a right token, another origin, plain HTTP are not', async () => {
  const counted: string[] = [];
  const a = app({ tokens: [OPERATOR] }, () => {}, { signIns: { refused: (reason) => counted.push(reason) } });
  const post = (token: string, from: string, origin = 'https://status.example', url = 'https://status.example') =>
    a.request(`${url}/sign-in`, form(token, origin), tlsFrom(from));
  for (let i = 0; i < 11; i++) await post(`guess-${i}-0123456789abcdef`, '10.7.7.7');
  assert.is((await post(OPERATOR, '10.8.8.8')).status, 303);
  assert.is((await post('guess-x-0123456789abcdef', '10.8.8.8', 'https://evil.example')).status, 403);
  assert.is(
    (await a.request('http://status.example/sign-in', form('guess-y-0123456789', 'http://status.example'))).status,
    403,
  );
  assert.equal(counted, [...Array(10).fill('wrong_token'), 'rate_limited']);
});

test('a body cut off mid-way, chunked or not: 400 in one line, not counted as a wrong token', async () => {
  const lines: string[] = [];
  const counted: string[] = [];
  const a = app({ tokens: [OPERATOR] }, (line) => lines.push(line), {
    signIns: { refused: (reason) => counted.push(reason) },
  });
  // What @hono/node-server hands the app when the client's connection ends mid-body: a stream that errors.
  const cut = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('token=operator-tok'));
      },
      pull(controller) {
        controller.error(new Error('aborted'));
      },
    });
  const framings: Record<string, string>[] = [{ 'content-length': '60' }, { 'transfer-encoding': 'chunked' }];
  for (const framing of framings) {
    const headers = { origin: 'https://status.example', 'content-type': 'application/x-www-form-urlencoded' };
    const init = { method: 'POST', headers: { ...headers, ...framing }, body: cut(), duplex: 'half' } as RequestInit;
    const res = await a.request('https://status.example/sign-in', init, tlsFrom('10.6.6.6'));
    assert.is(res.status, 400, JSON.stringify(framing));
    assert.is(await res.text(), 'Sign-in form unreadable: the body ended before it was complete.\n');
    assert.is(res.headers.get('cache-control'), 'no-store');
  }
  assert.equal(counted, []);
  assert.not.ok(
    lines.some((line) => line.includes('wrong operator token')),
    lines.join('\n'),
  );
});

test("a token reload through the app ends the removed token's sessions, counted; local mode has none", async () => {
  let setTokens: ((tokens: readonly string[]) => number) | undefined;
  const KEPT = 'a-kept-operator-token-5f0c2a9e41d8';
  const make = (access: OperatorAccess) =>
    createApp({
      version: 'r',
      backendUrl: backend.url,
      timeoutMs: 1000,
      access,
      log: () => {},
      onTokenReload: (set) => (setTokens = set),
    });
  const a = make({ tokens: [OPERATOR, KEPT] });
  const removed = await signIn(a);
  const kept = await signIn(a, KEPT);
  assert.is(setTokens!([KEPT]), 1);
  assert.is(await operatorSees(a, removed), false);
  assert.is(await operatorSees(a, kept), true);
  make('open');
  assert.is(setTokens!([KEPT]), 0);
});

test('sign-in answers are no-store; an operator gets the signed-in page, local mode a redirect', async () => {
  const a = app();
  const cookie = await signIn(a);
  const signedIn = await a.request('https://status.example/sign-in', { headers: { cookie } }, TLS);
  assert.is(signedIn.headers.get('cache-control'), 'no-store');
  assert.not.match(await signedIn.text(), /<input/);
  const plain = await a.request('/sign-in');
  assert.is(plain.headers.get('cache-control'), 'no-store');
  const local = await app('open').request('https://status.example/sign-in', form('x', 'https://status.example'), TLS);
  assert.is(local.status, 303);
  assert.is(local.headers.get('location'), '/');
  // A request with no socket at all (no address to limit by) is still answered, as a stranger.
  const bare = await a.request(
    'https://status.example/sign-in',
    form('wrong-0123456789', 'https://status.example'),
    {},
  );
  assert.is(bare.status, 403);
});

test('the token field: trimmed, missing or malformed is a wrong token (401), never a failure', async () => {
  const a = app();
  const post = (body: string, type = 'application/x-www-form-urlencoded') =>
    a.request(
      'https://status.example/sign-in',
      { method: 'POST', headers: { origin: 'https://status.example', 'content-type': type }, body },
      tlsFrom('10.3.3.3'),
    );
  assert.is((await post(`token=%20${OPERATOR}%0A`)).status, 303);
  const missing = await post('other=1');
  assert.is(missing.status, 401);
  assert.match(await missing.text(), /That is not an operator token/);
  assert.is((await post('--x\r\nbroken', 'multipart/form-data; boundary=x')).status, 401);
});

test('sign-out from another origin is refused and ends nothing', async () => {
  const a = app();
  const cookie = await signIn(a);
  const res = await a.request(
    'https://status.example/sign-out',
    { method: 'POST', headers: { origin: 'https://evil.example', cookie } },
    TLS,
  );
  assert.is(res.status, 403);
  assert.ok(await operatorSees(a, cookie));
  const signedIn = await a.request('https://status.example/sign-in', { headers: { cookie } }, TLS);
  assert.match(await signedIn.text(), /You are signed in as an operator/);
  const out = await signOut(a, cookie);
  assert.is(out.headers.get('location'), '/');
  assert.is((await signOut(app('open'), cookie)).status, 303, 'local mode has no sessions to end');
});

test('a 404 is not cached either', async () => {
  const res = await app().request('/nowhere');
  assert.is(res.status, 404);
  assert.is(res.headers.get('cache-control'), 'no-store');
});

test('sign-out clears the cookie', async () => {
  const res = await app().request(
    'https://status.example/sign-out',
    {
      method: 'POST',
      headers: { origin: 'https://status.example', 'content-type': 'application/x-www-form-urlencoded' },
    },
    TLS,
  );
  assert.is(res.status, 303);
  assert.match(res.headers.get('set-cookie') ?? '', new RegExp(`^${SESSION_COOKIE}=;.*Max-Age=0`));
});

test.run();
