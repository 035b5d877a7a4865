// The frontend's sign-in doors as a stranger meets them, on a real process over real HTTPS: a 100 MiB chunked body
// answered 413 with memory flat, and read by a client that sends its whole body first; a guessing run from one and
// from many loopback addresses answered 429 while the right token still signs in from elsewhere, each refusal
// counted on the management port's /metrics, a session that sign-out ends, a token removed by a reload, and bodies
// cut off, garbled or trickled answered in one line.
import { writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { connect } from 'node:tls';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rssMiB } from './faults/support/process-stats.ts';
import { withDeadline } from './support/deadline.ts';
import { httpsGet } from './support/https-get.ts';
import { spawnService, type Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { createTestCa, type TestCa } from './support/test-ca.ts';
import { waitFor } from './support/deadline.ts';
import { sideBySide } from './support/side-by-side.ts';
import { parseExposition, sampleValue, scrape } from './support/metrics-text.ts';
import { lintMetrics } from './support/promtool.ts';

const OPERATOR = 'operator-token-doors-5f0c2a9e41d87b36';
const SECOND = 'operator-token-second-a41d87b365f0c2e9';
const MiB = 1024 * 1024;

let ca: TestCa;
let frontend: Service;
let base: string;
let operators: string;

test.before(async () => {
  ca = createTestCa();
  const cert = ca.issue('localhost');
  operators = join(ca.dir, 'operator-tokens');
  writeFileSync(operators, `${OPERATOR}\n`);
  frontend = await spawnService('frontend/main.ts', {
    env: {
      HOST: '0.0.0.0', // every loopback address, so 127.0.0.x are distinct clients
      HTTPS_PORT: '0', // the kernel's choice, read back from the start-up line
      BACKEND_URL: 'http://127.0.0.1:9', // the doors ask no backend
      DEVICE_URL: '',
      TLS_CERT_FILE: cert.certFile,
      TLS_KEY_FILE: cert.keyFile,
      OPERATOR_TOKENS_FILE: operators,
    },
    waitPath: false,
  });
  if (!frontend.httpsPort) throw new Error(`the frontend did not start:\n${frontend.lines.join('\n')}`);
  base = `https://localhost:${frontend.httpsPort}`;
});

// Registered after the frontend's start, so its body starts once the frontend listens.
const sideBySideTest = sideBySide(test, 1);

test.after(async () => {
  await stopAll();
  ca?.remove();
});

const ORIGIN = () => ({ origin: base, 'content-type': 'application/x-www-form-urlencoded' });
const post = (path: string, body: string, localAddress?: string, headers: Record<string, string> = {}) =>
  httpsGet(base + path, { ca: ca.ca, method: 'POST', body, localAddress, headers: { ...ORIGIN(), ...headers } });

/** Streams up to `total` bytes chunked, a MiB at a time as the socket drains, until the server answers. */
function streamChunked(total: number) {
  return new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request(`${base}/sign-in`, { ca: ca.ca, method: 'POST', agent: false, headers: ORIGIN() }, (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body, sent }));
    });
    req.on('error', (error) => (answered ? undefined : reject(error)));
    const chunk = Buffer.alloc(MiB, 'token=');
    const write = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

test('100 MiB chunked at /sign-in: 413 in one line, the memory flat', async () => {
  const before = rssMiB(frontend.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(frontend.pid))), 20);
  try {
    const answer = await withDeadline(streamChunked(100 * MiB), 60_000, 'the 413');
    assert.is(answer.status, 413);
    assert.is(answer.body, 'Sign-in form too large: a token form is at most 4096 bytes.\n');
  } finally {
    clearInterval(sampler);
  }
  // The old code read the whole stream into memory before answering: +100 MiB and more.
  assert.ok(peak - before < 40, `RSS ${before.toFixed(1)} → peak ${peak.toFixed(1)} MiB`);
  const sized = await post('/sign-in', 'token='.padEnd(5000, 'x'));
  assert.is(sized.status, 413, 'a Content-Length over the bound too');
});

/** Writes `head` over TLS, then `body` as `send` says; resolves with what the server wrote before it closed. */
function rawSignIn(head: string, send: (socket: ReturnType<typeof connect>) => void) {
  return new Promise<string>((resolve, reject) => {
    const socket = connect({ host: 'localhost', port: Number(new URL(base).port), ca: ca.ca }, () => {
      socket.write(`POST /sign-in HTTP/1.1\r\nHost: ${new URL(base).host}\r\nOrigin: ${base}\r\n` + head);
      send(socket);
    });
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', (error) => (answer ? undefined : reject(error)));
  });
}
const FORM = 'Content-Type: application/x-www-form-urlencoded\r\n';
const lastLine = (answer: string) => answer.slice(answer.indexOf('\r\n\r\n') + 4);
const CRLF = Buffer.from('\r\n');

test('32 MiB chunked sent whole before the answer is read: 413 in one line, no reset', async () => {
  // Before, the frontend closed with the body unread: the reset lost the 413 and failed the writes (EPIPE).
  const chunk = Buffer.concat([Buffer.from(`${MiB.toString(16)}\r\n`), Buffer.alloc(MiB, 'token='), CRLF]);
  let failed: string | undefined;
  const answer = await withDeadline(
    rawSignIn(`${FORM}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n`, (socket) => {
      socket.on('error', (error: NodeJS.ErrnoException) => (failed = error.code));
      socket.pause(); // a client that looks at the answer only once it has sent its body
      for (let i = 0; i < 32; i++) socket.write(chunk);
      socket.write('0\r\n\r\n', () => socket.resume());
    }),
    60_000,
    'the 413 to a body sent whole',
  );
  assert.is(failed, undefined, 'the body was sent whole');
  assert.match(answer, /^HTTP\/1\.1 413 Payload Too Large\r\n/, answer);
  assert.is(lastLine(answer), 'Sign-in form too large: a token form is at most 4096 bytes.\n');
});

test('a chunked body cut off, or a chunk size that is no number: 400 in one line, no stack, no guess', async () => {
  const seen = frontend.lines.length;
  const cut = await withDeadline(
    rawSignIn(`${FORM}Transfer-Encoding: chunked\r\n\r\n`, (socket) => socket.end('14\r\ntoken=operator-tok')),
    15_000,
    'the answer to a cut-off body',
  );
  assert.match(cut, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.is(lastLine(cut), 'Request refused: the connection ended before the request was complete.\n');
  const garbled = await withDeadline(
    rawSignIn(`${FORM}Transfer-Encoding: chunked\r\n\r\n`, (socket) => socket.write('zz\r\ntoken=x\r\n')),
    15_000,
    'the answer to a bad chunk size',
  );
  assert.match(garbled, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.is(lastLine(garbled), 'Request refused: the request is not well-formed HTTP/1.1 (HPE_INVALID_CHUNK_SIZE).\n');
  // Before, Hono's 500 printed the stream's error with its stack, and a cut Content-Length body counted as a guess.
  const since = frontend.lines.slice(seen);
  assert.not.ok(
    since.some((line) => /Error|^\s+at |wrong operator token/.test(line)),
    since.join('\n'),
  );
  assert.is((await httpsGet(`${base}/`, { ca: ca.ca })).status, 200, 'still serving');
});

test('sign-out ends the session: the same cookie replayed is a stranger', async () => {
  const signedIn = await post('/sign-in', `token=${OPERATOR}`);
  assert.is(signedIn.status, 303);
  const cookie = String(signedIn.headers['set-cookie']).split(';')[0]!;
  const status = async () =>
    JSON.parse((await httpsGet(`${base}/status.json`, { ca: ca.ca, headers: { cookie } })).body);
  assert.is((await status()).operator, true);
  assert.is((await post('/sign-out', '', undefined, { cookie })).status, 303);
  assert.is((await status()).operator, false);
});

test('guessing from one and from many addresses: 429 with Retry-After; the right token works elsewhere', async () => {
  const guess = (i: number, from: string) => post('/sign-in', `token=guess-${i}-0123456789abcdef`, from);
  const before = await refusals();
  const one: number[] = [];
  for (let i = 0; i < 12; i++) one.push((await guess(i, '127.0.0.2')).status);
  assert.equal(one, [...Array(10).fill(401), 429, 429]);
  const refused = await post('/sign-in', `token=${OPERATOR}`, '127.0.0.2');
  assert.is(refused.status, 429);
  assert.match(String(refused.headers['retry-after']), /^[1-9]\d*$/);
  // Twenty addresses, ten guesses each, none over its own burst: past the overall hundred (refilled at one a second,
  // so some seconds of the run give a few back) a failing address waits all the same.
  const many: number[] = [];
  for (let host = 3; host <= 22; host++)
    for (let i = 0; i < 10; i++) many.push((await guess(i, `127.0.0.${host}`)).status);
  assert.ok(many.includes(429), `statuses ${many.join(' ')}`);
  assert.is((await post('/sign-in', `token=${OPERATOR}`, '127.0.0.50')).status, 303);
  const warned = frontend.lines.filter((line) => line.includes('wrong operator token'));
  assert.ok(warned.length >= 1 && warned.length < 10, `${warned.length} warning lines for over 100 wrong tokens`);
  assert.not.ok(frontend.lines.some((line) => line.includes('guess-') || line.includes(OPERATOR)));
  // Every refusal counted once by its reason, on the management port; no label names a token or an address.
  const after = await refusals();
  const limited = many.filter((s) => s === 429).length + 3; // 2 guesses and the right token from 127.0.0.2
  assert.is(after.wrong_token - before.wrong_token, 10 + many.filter((s) => s === 401).length);
  assert.is(after.rate_limited - before.rate_limited, limited);
  assert.not.match(after.text, /guess-|127\.0\.0\.|operator-token/);
  assert.equal(lintMetrics(after.text), [], 'promtool check metrics');
});

test('SIGHUP reloads the token file: a removed token signs in no more, its cookie replayed is a stranger', async () => {
  const reloaded = async (expected: RegExp) => {
    const seen = frontend.lines.length;
    frontend.signal('SIGHUP');
    return waitFor(() => frontend.lines.slice(seen).find((line) => expected.test(line)), { what: String(expected) });
  };
  const signIn = async (token: string) => {
    const answer = await post('/sign-in', `token=${token}`, '127.0.0.60');
    assert.is(answer.status, 303, answer.body);
    return String(answer.headers['set-cookie']).split(';')[0]!;
  };
  const operator = async (cookie: string) =>
    JSON.parse((await httpsGet(`${base}/status.json`, { ca: ca.ca, headers: { cookie } })).body).operator;
  const first = await signIn(OPERATOR);
  writeFileSync(operators, `${OPERATOR}\n${SECOND}\n`);
  await reloaded(/^frontend: operator tokens reloaded: 2 tokens; 0 sessions of removed tokens ended$/);
  const second = await signIn(SECOND);
  // A weak token in the file: nothing changes, and the line names the rule, not the token.
  writeFileSync(operators, `${SECOND}\n0123456789abcdef\n`);
  const refused = await reloaded(/^frontend: operator tokens not reloaded/);
  assert.match(refused, /OPERATOR_TOKENS_FILE: token 2 is too short/);
  assert.ok(await operator(first), 'the weak file left every session alone');
  writeFileSync(operators, `${SECOND}\n`);
  // The earlier tests' sessions of OPERATOR end too, so at least this one.
  const ended = await reloaded(/^frontend: operator tokens reloaded: 1 token; \d+ sessions? of removed tokens ended$/);
  assert.ok(Number(/; (\d+) session/.exec(ended)![1]) >= 1, ended);
  assert.is(await operator(first), false, "the removed token's cookie replayed");
  assert.is(await operator(second), true, "the other token's session survives");
  assert.is((await post('/sign-in', `token=${OPERATOR}`, '127.0.0.61')).status, 401);
  assert.not.ok(frontend.lines.some((line) => line.includes(SECOND) || line.includes('0123456789abcdef')));
  assert.is(frontend.child.exitCode, null, 'still running');
});

// Last, and side by side with the tests above: it waits out lib/serve.ts's 30 s request timeout, which no setting
// shortens, while they run. A request that never arrives whole is refused by Node's parser, before the app: it writes
// no log line and counts no refusal, so the other tests' lines and counts are their own.
sideBySideTest(
  'a body trickled a byte a second: the request timeout ends it, 408 in one line; others are served',
  async () => {
    let trickle: NodeJS.Timeout | undefined;
    const answer = rawSignIn(`${FORM}Content-Length: 1000\r\n\r\n`, (socket) => {
      trickle = setInterval(() => socket.writable && socket.write('x'), 1000);
    });
    try {
      assert.is((await httpsGet(`${base}/`, { ca: ca.ca })).status, 200, 'another client meanwhile');
      // lib/serve.ts's requestTimeout, 30 s, and its check every 0.5 s; without it Node would wait forever.
      const slow = await withDeadline(answer, 60_000, 'the 408');
      assert.match(slow, /^HTTP\/1\.1 408 Request Timeout\r\n/);
      assert.is(lastLine(slow), 'Request refused: the request did not arrive whole in time.\n');
    } finally {
      clearInterval(trickle);
    }
  },
);

/** frontend_sign_ins_refused_total by reason, scraped from the management port. */
async function refusals() {
  const { status, text } = await scrape(frontend.metricsUrl);
  assert.is(status, 200);
  const samples = parseExposition(text);
  const count = (reason: string) => sampleValue(samples, 'frontend_sign_ins_refused_total', { reason }) ?? NaN;
  return { wrong_token: count('wrong_token'), rate_limited: count('rate_limited'), text };
}

test.run();
