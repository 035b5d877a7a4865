// Who may open the backend's device socket: the right bearer token only (401 before any upgrade otherwise),
// nobody when DEVICE_TOKEN is unset outside local mode, at most DEVICE_SOCKETS_MAX at once (503 beyond).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnService, TEST_DEVICE_TOKEN, type Service } from './support/spawn-service.ts';
import { withDeadline, waitFor } from './support/deadline.ts';
import { stopAll } from './support/spawn-process.ts';
import { openSocket, upgrade, type Refused } from './support/device-socket.ts';
import { jsonLines } from './support/device-services.ts';
import { expectRefusal } from './support/refused-start.ts';

const test = suite('backend device socket access');
const start = (env: Record<string, string | undefined> = {}) =>
  spawnService('backend/main.ts', { env: { MONGODB_URI: 'mongodb://127.0.0.1:9/app', ...env } });
const warnings = (backend: Service, text: string) =>
  jsonLines(backend).filter((l) => l.level === 40 && String(l.msg).includes(text));
const refusal = async (url: string, authorization: string | null) => {
  const result = await upgrade(url, { authorization });
  assert.is.not(result.status, 101, `upgraded with ${JSON.stringify(authorization)}`);
  return result as Refused;
};

test.after.each(() => stopAll());

test(
  'no token, a wrong token, Basic, or the token in the wrong case: ' +
    '401 before any upgrade; the right token upgrades',
  async () => {
    const backend = await start();
    const wrongCase = TEST_DEVICE_TOKEN.toUpperCase();
    for (const authorization of [
      null,
      'Bearer wrong-token-0123456789abcdef',
      `Basic ${Buffer.from(`device:${TEST_DEVICE_TOKEN}`).toString('base64')}`,
      `Bearer ${wrongCase}`,
      `Bearer ${TEST_DEVICE_TOKEN}x`,
      TEST_DEVICE_TOKEN,
      'Bearer',
    ]) {
      const refused = await refusal(backend.url, authorization);
      assert.is(refused.status, 401, String(authorization));
      assert.is(refused.body, '');
      assert.is(refused.headers['www-authenticate'], 'Bearer realm="device socket"');
    }
    // RFC 7235: the scheme name is case-insensitive; only the token's case matters.
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const { ws } = await openSocket(backend.url, { authorization: `${scheme} ${TEST_DEVICE_TOKEN}` });
      ws.close();
    }
    // All seven refusals came from 127.0.0.1: one warning a minute per address, never the token.
    await waitFor(() => warnings(backend, 'refused a device socket upgrade').length === 1, {
      timeout: 2000,
      what: 'the warning',
    });
    const [warning] = warnings(backend, 'refused a device socket upgrade');
    assert.is(warning!.remoteAddress, '127.0.0.1');
    assert.is(warning!.reason, 'no token');
    const devices = await (await fetch(`${backend.url}/api/devices`)).text();
    for (const output of [backend.lines.join('\n'), devices]) {
      assert.not.ok(output.includes(TEST_DEVICE_TOKEN) || output.includes(wrongCase), 'the token appears in output');
    }
  },
);

test(
  'outside local mode, a backend without DEVICE_TOKEN refuses every device (401) ' + 'and says so once at start-up',
  async () => {
    const backend = await start({ DEVICE_TOKEN: undefined, NODE_ENV: 'production' });
    assert.is((await refusal(backend.url, `Bearer ${TEST_DEVICE_TOKEN}`)).status, 401);
    assert.is((await refusal(backend.url, null)).status, 401);
    assert.equal(
      warnings(backend, 'DEVICE_TOKEN is not set:').map((l) => l.msg),
      [
        'DEVICE_TOKEN is not set: every device socket upgrade is refused (401); ' +
          'set DEVICE_TOKEN on the backend and the device service',
      ],
    );
    assert.is((await fetch(`${backend.url}/api/health`)).status, 200, 'the probes stay open');
  },
);

test(
  'in local mode without DEVICE_TOKEN the socket is open (with a start-up warning); ' + 'with one, it is required',
  async () => {
    const open = await start({ DEVICE_TOKEN: undefined, NODE_ENV: 'local', NO_COLOR: '1' });
    const { ws } = await openSocket(open.url, { authorization: null });
    ws.close();
    assert.ok(
      open.lines.some((l) =>
        l.includes('DEVICE_TOKEN is not set: in local mode the device socket accepts devices without a token'),
      ),
    );
    const guarded = await start({ NODE_ENV: 'local' });
    assert.is((await refusal(guarded.url, null)).status, 401);
  },
);

test(
  `beyond DEVICE_SOCKETS_MAX open sockets the upgrade gets 503 with Retry-After; ` + `a closed socket frees its slot`,
  async () => {
    const backend = await start({ DEVICE_SOCKETS_MAX: '2' });
    const first = await openSocket(backend.url);
    await openSocket(backend.url);
    const full = await refusal(backend.url, `Bearer ${TEST_DEVICE_TOKEN}`);
    assert.is(full.status, 503);
    assert.is(full.headers['retry-after'], '5');
    // Authentication comes first: a stranger learns nothing about capacity.
    assert.is((await refusal(backend.url, null)).status, 401);
    first.ws.close();
    await withDeadline(first.closed, 3000, 'close');
    const again = await waitFor(
      async () => {
        const result = await upgrade(backend.url);
        return result.status === 101 ? result : undefined;
      },
      { timeout: 3000, what: 'a free slot' },
    );
    assert.is(again.status, 101);
    await waitFor(() => warnings(backend, 'DEVICE_SOCKETS_MAX (2) sockets are open (503)').length === 1, {
      timeout: 2000,
      what: 'the warning',
    });
  },
);

test('bad settings: one line, exit 1, and the token is never quoted', async () => {
  for (const [env, expected] of [
    [{ DEVICE_TOKEN: 'Zq7Wk-short' }, 'backend: DEVICE_TOKEN is too short (11 characters): use at least 16'],
    [{ DEVICE_TOKEN: 'Zq7Wk two words-0123' }, 'backend: DEVICE_TOKEN is not valid: it contains whitespace'],
    [{ DEVICE_TOKEN: 'Zq7Wk\nline-0123456789' }, 'backend: DEVICE_TOKEN is not valid: it contains whitespace'],
    [{ DEVICE_SOCKETS_MAX: 'abc' }, 'backend: DEVICE_SOCKETS_MAX=abc is not valid'],
    [{ DEVICE_SOCKETS_MAX: '0' }, 'backend: DEVICE_SOCKETS_MAX=0 is not valid'],
  ] as const) {
    // Outside local mode the same error is also one level-60 JSON line on stdout, for log pipelines.
    const { service: backend } = await expectRefusal('backend/main.ts', { env }, expected);
    if ('DEVICE_TOKEN' in env) assert.not.ok(backend.lines.join('\n').includes('Zq7Wk'), 'the token is quoted');
  }
  // Surrounding whitespace (a trailing newline from a file or a Secret) is trimmed, not refused.
  const trimmed = await start({ DEVICE_TOKEN: `  ${TEST_DEVICE_TOKEN}\n` });
  const { ws } = await openSocket(trimmed.url);
  ws.close();
});

test.run();
