// The backend as a real process against the MongoDB stand-in (a process of its own where a test kills, hangs or
// starts it late; in-process where it only has to answer): readiness follows the database.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnService, type Service } from './support/spawn-service.ts';
import { startMongoProcess, type MongoProcess } from './support/mongo-process.ts';
import { startMongoStandin, type MongoStandin } from '../dev/mongo-standin/server.ts';
import { freePort } from '../tools/free-port.ts';
import { waitFor } from './support/deadline.ts';
import { stopAll } from './support/spawn-process.ts';
import { expectRefusal } from './support/refused-start.ts';
import { createPool } from './support/run-smoke-cli.ts';

const test = suite('backend process');
let mongoPort = 0;
/** In-process, for the tests that only need a database that answers: the ones that kill or hang it use a process. */
let database: MongoStandin;

test.before(async () => {
  mongoPort = await freePort();
  database = await startMongoStandin();
});
test.after.each(() => stopAll());
test.after(() => database.close());

const status = async (url: string) => {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  return { status: res.status, body: await res.json() };
};

/**
 * Polls /api/ready until it answers `code`. How soon is the fault suite's to bound (test/faults/database.fault.ts);
 * the deadline here only stops a broken test from hanging.
 */
async function untilReady(backend: Service, code: number): Promise<void> {
  await waitFor(async () => (await status(`${backend.url}/api/ready`)).status === code, {
    timeout: 20_000,
    interval: 10,
    what: `/api/ready to answer ${code}`,
  });
}

/** The device thread starts beside the rest of start-up: readiness names `devices` starting until it runs. */
async function untilDevicesOk(backend: Service): Promise<void> {
  await waitFor(async () => (await status(`${backend.url}/api/ready`)).body.checks?.devices === 'ok', {
    timeout: 20_000,
    interval: 10,
    what: 'the devices check to say ok',
  });
}

async function startBackend(env: Record<string, string | undefined> = {}) {
  return spawnService('backend/main.ts', { env: { MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/app`, ...env } });
}

/** The stand-in process and a backend on it, started side by side: the backend keeps trying until it is there. */
const startBoth = (env: Record<string, string | undefined> = {}) =>
  Promise.all([startMongoProcess(mongoPort), startBackend(env)]);

test('boots with the database down: health 200, ready 503, then 200 once the database appears', async () => {
  const backend = await startBackend();
  await untilDevicesOk(backend);
  const health = await status(`${backend.url}/api/health`);
  assert.is(health.status, 200);
  assert.equal(health.body.database, { status: 'disconnected', name: 'app' });
  const ready = await status(`${backend.url}/api/ready`);
  assert.is(ready.status, 503);
  assert.equal(ready.body.checks, { database: 'disconnected', devices: 'ok' });
  assert.is(ready.body.status, 'not_ready');
  // A connect attempt has failed and it says it keeps trying, without crashing.
  await waitFor(() => backend.stdout.some((line) => line.includes('database unreachable; retrying')), {
    timeout: 20_000,
    what: 'the "database unreachable; retrying" line',
  });
  assert.is(backend.child.exitCode, null);
  await startMongoProcess(mongoPort);
  await untilReady(backend, 200);
  assert.equal((await status(`${backend.url}/api/health`)).body.database, { status: 'connected', name: 'app' });
});

test('database killed → 503 (database disconnected); restarted → 200', async () => {
  let [mongo, backend]: [MongoProcess, Service] = await startBoth();
  await untilReady(backend, 200);
  await untilDevicesOk(backend);
  // Steady state: the driver's streaming heartbeat starts one interval (500 ms) after it connects; before
  // that a dead server is noticed at the next heartbeat, not at once. The stand-in reports the stream.
  await mongo.streaming();
  mongo.child.kill('SIGKILL');
  await untilReady(backend, 503);
  assert.equal((await status(`${backend.url}/api/ready`)).body.checks, { database: 'disconnected', devices: 'ok' });
  mongo = await startMongoProcess(mongoPort);
  await untilReady(backend, 200);
});

test('database silently hung (SIGSTOP) → 503 while health stays 200; SIGCONT → 200', async () => {
  const [mongo, backend] = await startBoth();
  await untilReady(backend, 200);
  await mongo.streaming(); // steady state: the driver's heartbeat is streaming
  mongo.signal('SIGSTOP');
  await untilReady(backend, 503);
  assert.is((await status(`${backend.url}/api/health`)).status, 200, 'liveness stays 200 while the database hangs');
  mongo.signal('SIGCONT');
  await untilReady(backend, 200);
});

test('SIGTERM: readiness 503 shutting_down while health stays 200 during the drain delay, then exit 0', async () => {
  const backend = await startBackend({ MONGODB_URI: `${database.url}/app`, SHUTDOWN_DELAY_MS: '1500' });
  await untilReady(backend, 200);
  backend.signal('SIGTERM');
  const ready = await waitFor(
    async () => {
      const r = await status(`${backend.url}/api/ready`);
      return r.status === 503 ? r : undefined;
    },
    { timeout: 1000, what: 'readiness 503 after SIGTERM' },
  );
  assert.is(ready.body.status, 'shutting_down');
  assert.is((await status(`${backend.url}/api/health`)).status, 200);
  assert.is(await backend.waitExit(10_000), 0);
  const lines = backend.stdout.map((line) => JSON.parse(line));
  assert.ok(
    lines.some((l) => l.msg === 'shutdown complete'),
    'logs shutdown complete',
  );
});

test('production logs: every line is JSON with a numeric level; request lines carry req', async () => {
  const backend = await startBackend({ MONGODB_URI: `${database.url}/app`, LOG_LEVEL: 'debug' });
  await untilReady(backend, 200);
  await fetch(`${backend.url}/api/nope`);
  await backend.stop();
  assert.ok(backend.stdout.length > 3);
  const lines = backend.stdout.map((line) => JSON.parse(line));
  for (const line of lines) assert.type(line.level, 'number');
  const requests = lines.filter((l) => l.msg === 'request completed');
  assert.ok(
    requests.some((l) => l.req.url === '/api/ready' && l.level === 20),
    'passing probes at debug',
  );
  assert.ok(requests.some((l) => l.req.url === '/api/nope' && l.res.statusCode === 404 && l.level === 30));
  for (const line of requests) assert.equal(Object.keys(line.req).sort(), ['method', 'url']);
});

test('credentials in MONGODB_URI are never printed, in logs or bodies', async () => {
  const password = 'S3cr3t-Pa55';
  const backend = await startBackend({
    MONGODB_URI: `mongodb://admin:${password}@${database.url.slice('mongodb://'.length)}/orders?authSource=admin`,
    LOG_LEVEL: 'debug',
  });
  // Wait for the driver's failed attempt to be logged: that is the line most likely to carry the URI's secret.
  await waitFor(() => backend.stdout.some((line) => line.includes('database unreachable')), {
    timeout: 15_000,
    what: 'a failed connection attempt logged',
  });
  const health = await fetch(`${backend.url}/api/health`).then((r) => r.text());
  const ready = await fetch(`${backend.url}/api/ready`).then((r) => r.text());
  await backend.stop();
  assert.match(health, '"name":"orders"');
  const everything = [health, ready, ...backend.lines].join('\n');
  assert.not.match(everything, password);
  assert.ok(
    backend.stdout.some((line) => line.includes('admin:***@')),
    'the redacted URI is logged',
  );
});

test(
  'secrets in MONGODB_URI options are never printed either: ' + 'proxyPassword, tlsCertificateKeyFilePassword',
  async () => {
    // Through a proxy at port 9, where nothing listens: no database is reached, so none is started.
    const [proxySecret, keySecret] = ['Pr0xy-S3cret', 'K3y-S3cret'];
    const backend = await startBackend({
      MONGODB_URI:
        `mongodb://127.0.0.1:${mongoPort}/orders?proxyHost=127.0.0.1&proxyPort=9&proxyUsername=p` +
        `&proxyPassword=${proxySecret}&tls=true&tlsCertificateKeyFilePassword=${keySecret}`,
      LOG_LEVEL: 'debug',
    });
    await waitFor(() => backend.stdout.some((line) => line.includes('database unreachable')), {
      timeout: 15_000,
      what: 'a failed connection attempt logged',
    });
    await backend.stop();
    const everything = backend.lines.join('\n');
    assert.not.match(everything, proxySecret);
    assert.not.match(everything, keySecret);
    assert.ok(
      backend.stdout.some(
        (line) => line.includes('proxyPassword=***') && line.includes('tlsCertificateKeyFilePassword=***'),
      ),
      'the redacted URI is logged',
    );
  },
);

test('bad settings: one line naming the variable (and the JSON fatal line), exit 1', async () => {
  // Each refusal is a process of its own: a few at a time.
  const pool = createPool(4);
  const refusals: Promise<unknown>[] = [];
  for (const [env, expected] of [
    [{ PORT: 'abc' }, 'backend: PORT=abc is not valid'],
    [{ SHUTDOWN_DELAY_MS: 'soon' }, 'backend: SHUTDOWN_DELAY_MS=soon is not valid'],
    [{ MONGODB_URI: 'postgres://x' }, 'backend: MONGODB_URI=postgres://x is not valid'],
    [{ LOG_LEVEL: 'loud' }, 'backend: LOG_LEVEL=loud is not valid'],
    // URIs the driver refuses once were an "unexpected error" with a stack: now its reason, in the same line.
    [{ MONGODB_URI: 'mongodb://db/app?foo=bar' }, 'backend: MONGODB_URI=mongodb://db/app?foo=bar is not valid: option'],
    [{ MONGODB_URI: 'mongodb://db:99999/app' }, 'backend: MONGODB_URI=mongodb://db:99999/app is not valid: Unable'],
    [
      { MONGODB_URI: 'mongodb://db/app?tls=maybe' },
      'backend: MONGODB_URI=mongodb://db/app?tls=maybe is not valid: tls',
    ],
    [
      { MONGODB_URI: 'mongodb://db/app?replicaSet=' },
      'backend: MONGODB_URI=mongodb://db/app?replicaSet= is not valid:',
    ],
    [{ MONGODB_URI: 'mongodb://u:pa:ss@db/app' }, 'backend: MONGODB_URI=mongodb://u:***@db/app is not valid: Password'],
    [{ MONGODB_URI: 'mongodb://u:pa/ss@db/app' }, 'backend: MONGODB_URI=mongodb://u:***@db/app is not valid: Password'],
    [{ MONGODB_URI: 'mongodb://u%zz:p@db/app' }, 'backend: MONGODB_URI=mongodb://u%zz:***@db/app is not valid: URI'],
    // A release id that cannot be reported as it is: refused rather than cut or cleaned into another release.
    [{ RELEASE_ID: 'x'.repeat(129) }, `backend: RELEASE_ID="${'x'.repeat(40)}…" is not valid: it is 129 characters`],
    [{ RELEASE_ID: 'v1 beta' }, 'backend: RELEASE_ID="v1 beta" is not valid: use letters, digits'],
  ] as const) {
    refusals.push(pool(() => expectRefusal('backend/main.ts', { env }, expected)));
  }
  await Promise.all(refusals);
});

test('the release: RELEASE_ID as version; unset, the checkout commit; the readiness forms over real HTTP', async () => {
  const [backend, unset] = await Promise.all([
    startBackend({ RELEASE_ID: '9c41d2e07b3a' }),
    startBackend({ RELEASE_ID: '' }),
  ]);
  await untilDevicesOk(backend);
  assert.is((await status(`${backend.url}/api/health`)).body.version, '9c41d2e07b3a');
  const ask = (path: string, accept?: string) =>
    fetch(`${backend.url}${path}`, { headers: accept ? { accept } : {}, signal: AbortSignal.timeout(5000) });
  let res = await ask('/api/ready', 'application/health+json');
  assert.is(res.status, 503);
  assert.is(res.headers.get('content-type'), 'application/health+json');
  const health = await res.json();
  assert.is(health.status, 'fail');
  assert.is(health.releaseId, '9c41d2e07b3a');
  assert.is(health.checks.database[0].observedValue, 'disconnected');
  res = await ask('/api/ready', 'text/html');
  assert.equal([res.status, res.headers.get('content-type')], [503, 'application/json']);
  assert.equal(Object.keys((await res.json()).details), ['database', 'devices']);
  res = await ask('/api/ready?verbose');
  assert.equal([res.status, res.headers.get('content-type')], [503, 'text/plain; charset=utf-8']);
  const lines = (await res.text()).split('\n');
  assert.match(lines[0]!, /^\[-\]database failed: disconnected since \S+$/);
  assert.match(lines[1]!, /^\[\+\]devices ok: ok since \S+$/);
  assert.equal(lines.slice(2), ['readiness check failed: not_ready', '']);
  assert.is((await ask('/api/ready/database')).status, 503);
  assert.is((await ask('/api/ready/devices')).status, 200, 'the device path is judged on its own');
  assert.is((await ask('/api/ready/nope')).status, 404);
  assert.is((await ask('/api/ready?verbose=garbage')).status, 400);
  // The tests run in a git checkout: its short commit; exported without .git, `unknown`.
  assert.match((await status(`${unset.url}/api/health`)).body.version, /^([0-9a-f]{12}|unknown)$/);
});

test('HOST unset: listens on every interface, IPv4 and IPv6', async () => {
  const backend = await startBackend({ HOST: undefined });
  assert.is((await status(`http://127.0.0.1:${backend.port}/api/health`)).status, 200);
  assert.is((await status(`http://[::1]:${backend.port}/api/health`)).status, 200);
});

// The backend binds its port only once its device thread runs, and its database monitor is already connecting
// then: on a busy machine its "database unreachable; retrying" warning comes first. The refusal's lines are the
// subject here, so the port tests log nothing below fatal (the fatal line is written whatever LOG_LEVEL says).
const PORT_ERROR_ONLY = 'fatal';

test(
  'a port already in use: ' + 'one line on stderr, the same as one fatal JSON line on stdout (production), exit 1',
  async () => {
    const first = await startBackend();
    // Log pipelines read stdout as JSON: the line that explains a crash loop must be there too.
    const { fatal } = await expectRefusal(
      'backend/main.ts',
      { port: first.port, env: { LOG_LEVEL: PORT_ERROR_ONLY } },
      /port \d+ is already in use/,
    );
    assert.is(fatal?.code, 'EADDRINUSE');
  },
);

test('a port already in use in local mode: the human line only', async () => {
  const first = await startBackend();
  await expectRefusal(
    'backend/main.ts',
    { port: first.port, env: { NODE_ENV: 'local', LOG_LEVEL: PORT_ERROR_ONLY } },
    /^backend: 127\.0\.0\.1 port \d+ is already in use/,
  );
});

test.run();
