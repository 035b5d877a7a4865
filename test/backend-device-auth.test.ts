// Who may open the backend's device socket: the right bearer token only (401 before any upgrade otherwise),
// nobody when no token is set outside local mode, at most DEVICE_SOCKETS_MAX at once (503 beyond); and, with
// DEVICE_TOKENS, who may say hello as which device (1008 otherwise).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { READ_AUTH, spawnService, TEST_DEVICE_TOKEN, type Service } from './support/spawn-service.ts';
import { withDeadline, waitFor } from './support/deadline.ts';
import { stopAll } from './support/spawn-process.ts';
import { openSocket, upgrade, type Refused } from './support/device-socket.ts';
import { jsonLines } from './support/device-services.ts';
import { expectRefusal } from './support/refused-start.ts';
import { createPool } from './support/run-smoke-cli.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout } from 'node:timers/promises';
import { join } from 'node:path';

const test = suite('backend device socket access');
const start = (env: Record<string, string | undefined> = {}) =>
  spawnService('backend/main.ts', { env: { MONGODB_URI: 'mongodb://127.0.0.1:9/app', ...env } });
const warnings = (backend: Service, text: string) =>
  jsonLines(backend).filter((l) => l.level === 40 && String(l.msg).includes(text));
const zip = <A, B>(as: readonly A[], bs: readonly B[]) => as.map((a, i) => [a, bs[i]!] as const);
const refusal = async (url: string, authorization: string | null) => {
  const result = await upgrade(url, { authorization });
  assert.is.not(result.status, 101, `upgraded with ${JSON.stringify(authorization)}`);
  return result as Refused;
};

const TOKEN_A = 'own-token-of-device-a-5f2c91d07b';
const TOKEN_B = 'own-token-of-device-b-a81e6c3d44';

// Each test's backend has settings of its own: all of them start when the file begins, a few side by side, and each
// test awaits its own (one backend per setting, so no test sees another's sockets or warnings).
const SETTINGS = {
  shared: {},
  noToken: { DEVICE_TOKEN: undefined, NODE_ENV: 'production' },
  localOpen: { DEVICE_TOKEN: undefined, NODE_ENV: 'local', NO_COLOR: '1' },
  localGuarded: { NODE_ENV: 'local' },
  socketsMax: { DEVICE_SOCKETS_MAX: '2' },
  trimmed: { DEVICE_TOKEN: `  ${TEST_DEVICE_TOKEN}\n` },
  ownTokens: { DEVICE_TOKEN: undefined, DEVICE_TOKENS: `dev-a:${TOKEN_A},dev-b:${TOKEN_B}` },
  bothTokens: { DEVICE_TOKENS: `dev-a:${TOKEN_A}` },
  perToken: { DEVICE_TOKENS: `dev-a:${TOKEN_A}`, DEVICE_SOCKETS_PER_TOKEN: '2' },
} satisfies Record<string, Record<string, string | undefined>>;
const pool = createPool(3);
let started: Record<keyof typeof SETTINGS, Promise<Service>>;
test.before(() => {
  const entries = Object.entries(SETTINGS).map(([name, env]) => [name, pool(() => start(env))] as const);
  for (const [, promise] of entries) promise.catch(() => {}); // its test reports the failure
  started = Object.fromEntries(entries) as typeof started;
});
test.after(() => stopAll());
/** Refusals side by side, in the same pool as the starts. */
const refusals = (table: ReadonlyArray<readonly [Record<string, string>, string]>) =>
  Promise.all(table.map(([env, expected]) => pool(() => expectRefusal('backend/main.ts', { env }, expected))));

test(
  'no token, a wrong token, Basic, or the token in the wrong case: ' +
    '401 before any upgrade; the right token upgrades',
  async () => {
    const backend = await started.shared;
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
    const devices = await (await fetch(`${backend.url}/api/devices`, { headers: READ_AUTH })).text();
    for (const output of [backend.lines.join('\n'), devices]) {
      assert.not.ok(output.includes(TEST_DEVICE_TOKEN) || output.includes(wrongCase), 'the token appears in output');
    }
  },
);

test(
  'outside local mode, a backend without DEVICE_TOKEN refuses every device (401) ' + 'and says so once at start-up',
  async () => {
    const backend = await started.noToken;
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
    const open = await started.localOpen;
    const { ws } = await openSocket(open.url, { authorization: null });
    ws.close();
    assert.ok(
      open.lines.some((l) =>
        l.includes('DEVICE_TOKEN is not set: in local mode the device socket accepts devices without a token'),
      ),
    );
    const guarded = await started.localGuarded;
    assert.is((await refusal(guarded.url, null)).status, 401);
  },
);

test(
  `beyond DEVICE_SOCKETS_MAX open sockets the upgrade gets 503 with Retry-After; ` + `a closed socket frees its slot`,
  async () => {
    const backend = await started.socketsMax;
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
  const table = [
    [{ DEVICE_TOKEN: 'Zq7Wk-short' }, 'backend: DEVICE_TOKEN is too short (11 characters): use at least 16'],
    [{ DEVICE_TOKEN: 'Zq7Wk two words-0123' }, 'backend: DEVICE_TOKEN is not valid: it contains whitespace'],
    [{ DEVICE_TOKEN: 'Zq7Wk\nline-0123456789' }, 'backend: DEVICE_TOKEN is not valid: it contains whitespace'],
    [{ DEVICE_SOCKETS_MAX: 'abc' }, 'backend: DEVICE_SOCKETS_MAX=abc is not valid'],
    [{ DEVICE_SOCKETS_MAX: '0' }, 'backend: DEVICE_SOCKETS_MAX=0 is not valid'],
  ] as const;
  // Outside local mode the same error is also one level-60 JSON line on stdout, for log pipelines.
  for (const [[env], { service: backend }] of zip(table, await refusals(table))) {
    if ('DEVICE_TOKEN' in env) assert.not.ok(backend.lines.join('\n').includes('Zq7Wk'), 'the token is quoted');
  }
  // Surrounding whitespace (a trailing newline from a file or a Secret) is trimmed, not refused.
  const trimmed = await started.trimmed;
  const { ws } = await openSocket(trimmed.url);
  ws.close();
});

const hello = (deviceId: string) => JSON.stringify({ type: 'hello', deviceId, session: 's1' });

test(
  "DEVICE_TOKENS: a device's own token may say hello only as that device; " +
    'anything else is closed with 1008 and summed into one warning',
  async () => {
    const backend = await started.ownTokens;
    const own = await openSocket(backend.url, { authorization: `Bearer ${TOKEN_A}` });
    own.ws.send(hello('dev-a'));
    const impostors = [];
    for (const claimed of ['dev-b', 'dev-c', 'dev-b']) {
      const socket = await openSocket(backend.url, { authorization: `Bearer ${TOKEN_A}` });
      socket.ws.send(hello(claimed));
      impostors.push(socket);
    }
    for (const { closed } of impostors) {
      assert.equal(await withDeadline(closed, 3000, 'impostor closed'), {
        code: 1008,
        reason: 'token of another device',
      });
    }
    // The shared DEVICE_TOKEN is not set: it is refused at the upgrade.
    assert.is((await refusal(backend.url, `Bearer ${TEST_DEVICE_TOKEN}`)).status, 401);
    const lines = await waitFor(
      () => {
        const found = warnings(backend, 'its token may not speak for');
        return found.reduce((sum, l) => sum + l.count, 0) === 3 ? found : undefined;
      },
      { timeout: 8000, what: 'warnings summing to 3' },
    );
    assert.ok(lines.length <= 2, `${lines.length} warning lines for 3 impostors`);
    assert.is(lines[0]!.tokenDevice, 'dev-a');
    assert.is(lines[0]!.claimed, 'dev-b');
    assert.is(own.ws.readyState, own.ws.OPEN, "the device's own socket stays open");
    const devices = await (await fetch(`${backend.url}/api/devices`, { headers: READ_AUTH })).text();
    for (const output of [backend.lines.join('\n'), devices]) {
      assert.not.ok(output.includes(TOKEN_A) || output.includes(TOKEN_B), 'a token appears in output');
    }
    own.ws.close();
  },
);

test(
  'DEVICE_TOKEN and DEVICE_TOKENS together: a listed device needs its own token; ' +
    'the shared one still admits devices not listed',
  async () => {
    const backend = await started.bothTokens;
    const shared = await openSocket(backend.url);
    shared.ws.send(hello('dev-a'));
    assert.equal(await withDeadline(shared.closed, 3000, 'closed'), { code: 1008, reason: 'device has its own token' });
    const other = await openSocket(backend.url);
    other.ws.send(hello('dev-z'));
    const own = await openSocket(backend.url, { authorization: `Bearer ${TOKEN_A}` });
    own.ws.send(hello('dev-a'));
    // No database here: the hub's own line says whom it bound.
    const connected = () =>
      jsonLines(backend)
        .filter((l) => l.msg === 'device connected')
        .map((l) => l.deviceId)
        .sort();
    await waitFor(() => connected().length === 2, { timeout: 5000, what: 'two devices connected' });
    assert.equal(connected(), ['dev-a', 'dev-z']);
    assert.ok(
      jsonLines(backend).some((l) =>
        String(l.msg).startsWith('DEVICE_TOKENS lists the devices that must use their own'),
      ),
      'the start-up line says how the two combine',
    );
    other.ws.close();
    own.ws.close();
  },
);

test(
  "past DEVICE_SOCKETS_PER_TOKEN a device's own token gets its socket closed with 1013 and the reason; " +
    'a closed socket frees its slot; the shared token is bounded by DEVICE_SOCKETS_MAX alone',
  async () => {
    const backend = await started.perToken;
    const own = { authorization: `Bearer ${TOKEN_A}` };
    const kept = [await openSocket(backend.url, own), await openSocket(backend.url, own)];
    // A flood of one token: every socket past the bound is upgraded, then closed with a code and a reason.
    const excess = await Promise.all(Array.from({ length: 12 }, () => openSocket(backend.url, own)));
    const reason = "too many sockets for this device's token (DEVICE_SOCKETS_PER_TOKEN 2 open)";
    for (const { closed } of excess) {
      assert.equal(await withDeadline(closed, 3000, 'the excess socket closed'), { code: 1013, reason });
    }
    assert.ok(
      kept.every(({ ws }) => ws.readyState === ws.OPEN),
      'the first two stay open',
    );
    const shared = await Promise.all(Array.from({ length: 3 }, () => openSocket(backend.url)));
    assert.ok(
      shared.every(({ ws }) => ws.readyState === ws.OPEN),
      'the shared token is not bounded per token',
    );
    const lines = await waitFor(
      () => {
        const found = warnings(backend, 'past DEVICE_SOCKETS_PER_TOKEN (2) with 1013');
        return found.reduce((sum, l) => sum + l.count, 0) === 12 ? found : undefined;
      },
      { timeout: 8000, what: 'warnings summing to 12' },
    );
    assert.ok(lines.length <= 2, `${lines.length} warning lines for 12 refusals`);
    assert.is(lines[0]!.tokenDevice, 'dev-a');
    kept[0]!.ws.close();
    await withDeadline(kept[0]!.closed, 3000, 'close');
    const again = await waitFor(
      async () => {
        const socket = await openSocket(backend.url, own);
        const outcome = await Promise.race([socket.closed, setTimeout(300).then(() => 'open' as const)]);
        return outcome === 'open' ? socket : undefined;
      },
      { timeout: 3000, what: 'a free slot for the token' },
    );
    assert.is(again.ws.readyState, again.ws.OPEN);
    for (const { ws } of [...kept, ...shared, again]) ws.close();
  },
);

test('DEVICE_TOKENS_FILE: the pairs from a mounted file, one per line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'device-tokens-'));
  try {
    const file = join(dir, 'tokens');
    writeFileSync(file, `# hall 3\ndev-a:${TOKEN_A}\ndev-b:${TOKEN_B}\n`);
    const backend = await start({ DEVICE_TOKEN: undefined, DEVICE_TOKENS_FILE: file });
    const { ws, closed } = await openSocket(backend.url, { authorization: `Bearer ${TOKEN_B}` });
    ws.send(hello('dev-a'));
    assert.equal(await withDeadline(closed, 3000, 'closed'), { code: 1008, reason: 'token of another device' });
    assert.is((await refusal(backend.url, `Bearer ${TEST_DEVICE_TOKEN}`)).status, 401);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bad DEVICE_TOKENS: one line naming the entry (never the token), exit 1', async () => {
  const table = [
    [{ DEVICE_TOKENS: `dev-a:${TOKEN_A},${TOKEN_B}` }, 'backend: DEVICE_TOKENS entry 2 is not deviceId:token'],
    [
      { DEVICE_TOKENS: `dev-a:${TOKEN_A},dev-a:${TOKEN_B}` },
      'backend: DEVICE_TOKENS entry 2 names the device entry 1 names: one token per device',
    ],
    [
      { DEVICE_TOKENS: `dev-a:${TOKEN_A},dev-b:Zq7Wk-short` },
      'backend: DEVICE_TOKENS entry 2: the token is too short (11 characters): use at least 16',
    ],
    [
      { DEVICE_TOKENS_FILE: '/nonexistent/tokens' },
      'backend: DEVICE_TOKENS_FILE names a file that cannot be read: ENOENT',
    ],
  ] as const;
  for (const { service: backend } of await refusals(table)) {
    const output = backend.lines.join('\n');
    assert.not.ok(
      output.includes(TOKEN_A) || output.includes(TOKEN_B) || output.includes('Zq7Wk'),
      'a token is quoted',
    );
  }
});

test.run();
