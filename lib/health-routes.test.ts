import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHealthRoutes } from './health-routes.ts';
import { createReadiness } from './readiness.ts';

const T0 = '2026-11-25T10:00:00.000Z';

function setup() {
  const readiness = createReadiness({ now: () => new Date(T0) });
  const setDatabase = readiness.define('database', { initial: 'disconnected', ready: ['connected'] });
  const app = createHealthRoutes({
    readiness,
    environment: 'production',
    version: '0123456789ab',
    details: () => ({ extra: 1 }),
  });
  return { app, readiness, setDatabase };
}

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

test('GET /api/health is 200 with the liveness fields and no-store JSON headers', async () => {
  const { app } = setup();
  const res = await app.request('/api/health');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/json');
  assert.is(res.headers.get('cache-control'), 'no-store');
  const body = await res.json();
  assert.is(body.status, 'ok');
  assert.match(body.timestamp, ISO_UTC);
  assert.type(body.uptime, 'number');
  assert.ok(body.uptime > 0);
  assert.is(body.environment, 'production');
  assert.is(body.version, '0123456789ab');
  assert.is(body.extra, 1);
});

test('liveness stays 200 while readiness is 503', async () => {
  const { app } = setup();
  assert.is((await app.request('/api/ready')).status, 503);
  assert.is((await app.request('/api/health')).status, 200);
});

test('GET /api/ready names the failing check, then turns 200 when it recovers', async () => {
  const { app, setDatabase } = setup();
  let res = await app.request('/api/ready');
  assert.is(res.status, 503);
  let body = await res.json();
  assert.is(body.status, 'not_ready');
  assert.equal(body.checks, { database: 'disconnected' });
  assert.match(body.timestamp, ISO_UTC);
  setDatabase('connected');
  res = await app.request('/api/ready');
  assert.is(res.status, 200);
  body = await res.json();
  assert.equal(body, {
    status: 'ready',
    timestamp: body.timestamp,
    checks: { database: 'connected' },
    details: { database: { ok: true, since: T0 } },
  });
  assert.is(res.headers.get('cache-control'), 'no-store');
});

test('shutting down turns readiness 503 with status shutting_down; liveness stays 200', async () => {
  const { app, readiness, setDatabase } = setup();
  setDatabase('connected');
  readiness.shutDown();
  const res = await app.request('/api/ready');
  assert.is(res.status, 503);
  assert.is((await res.json()).status, 'shutting_down');
  assert.is((await app.request('/api/health')).status, 200);
});

test('HEAD is answered like GET, without a body', async () => {
  const { app } = setup();
  const health = await app.request('/api/health', { method: 'HEAD' });
  assert.is(health.status, 200);
  assert.is(await health.text(), '');
  const ready = await app.request('/api/ready', { method: 'HEAD' });
  assert.is(ready.status, 503);
  assert.is(await ready.text(), '');
});

for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
  test(`${method} gets 405 with Allow: GET, HEAD`, async () => {
    const { app } = setup();
    for (const path of ['/api/health', '/api/ready']) {
      const res = await app.request(path, { method });
      assert.is(res.status, 405, path);
      assert.is(res.headers.get('allow'), 'GET, HEAD');
      assert.match((await res.json()).error, `method ${method} is not allowed`);
    }
  });
}

test('environment is reported as given', async () => {
  const readiness = createReadiness();
  const app = createHealthRoutes({ readiness, environment: 'local' });
  const body = await (await app.request('/api/health')).json();
  assert.is(body.environment, 'local');
  assert.not.ok('version' in body, 'no version given, none reported');
});

test('details follow what they show, and are serialized again only when that changes', async () => {
  const readiness = createReadiness();
  const set = readiness.define('thing', { initial: 'down', ready: ['up'] });
  let backlog = 1;
  let serialized = 0;
  // toJSON is not enumerable: not part of what the details show, only a count of the serializations.
  const counted = (value: number) =>
    Object.defineProperty({ value }, 'toJSON', { value: () => (serialized++, value), enumerable: false });
  const app = createHealthRoutes({
    readiness,
    environment: 'production',
    details: () => ({ backlog: counted(backlog) }),
  });
  const health = async () => (await (await app.request('/api/health')).json()) as { backlog: number };
  assert.is((await health()).backlog, 1);
  assert.is((await health()).backlog, 1);
  backlog = 2;
  assert.is((await health()).backlog, 2, 'a change is shown at once');
  set('up');
  assert.is((await health()).backlog, 2);
  await health();
  assert.is(serialized, 2, 'serialized once per change, not per probe');
});

test('details: since when and why each check is in its state, beside the checks', async () => {
  const { app, setDatabase } = setup();
  setDatabase('connected');
  setDatabase('disconnected', 'client closed');
  const body = await (await app.request('/api/ready')).json();
  assert.equal(body.checks, { database: 'disconnected' });
  assert.equal(body.details, { database: { ok: false, since: T0, reason: 'client closed' } });
});

test('?verbose answers plain text lines, one per check, with the same status code', async () => {
  const readiness = createReadiness({ now: () => new Date(T0) });
  readiness.define('serial', { initial: 'emulator', ready: ['connected', 'emulator'] });
  const setBackend = readiness.define('backend', { initial: 'connected', ready: ['connected'] });
  const app = createHealthRoutes({ readiness, environment: 'production' });
  for (const query of ['?verbose', '?verbose=', '?verbose=1', '?verbose=true', '?x=1&verbose']) {
    const res = await app.request(`/api/ready${query}`);
    assert.is(res.status, 200, query);
    assert.is(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.is(
      await res.text(),
      `[+]serial ok: emulator since ${T0}\n[+]backend ok: connected since ${T0}\nreadiness check passed\n`,
    );
  }
  setBackend('unauthorized', 'the backend refused the token (401)');
  const res = await app.request('/api/ready?verbose');
  assert.is(res.status, 503);
  assert.is(
    await res.text(),
    `[+]serial ok: emulator since ${T0}\n` +
      `[-]backend failed: unauthorized since ${T0}: the backend refused the token (401)\n` +
      'readiness check failed: not_ready\n',
  );
  readiness.shutDown();
  assert.match(await (await app.request('/api/ready?verbose')).text(), /readiness check failed: shutting_down\n$/);
});

test('?verbose=0 or false is the default JSON; ?verbose=garbage is a one-line 400', async () => {
  const { app } = setup();
  for (const query of ['?verbose=0', '?verbose=false', '?other=1']) {
    const res = await app.request(`/api/ready${query}`);
    assert.is(res.status, 503, query);
    assert.is((await res.json()).status, 'not_ready');
  }
  for (const value of ['garbage', 'yes%0Aplease', '%E0%A4%A', 'x'.repeat(500)]) {
    const res = await app.request(`/api/ready?verbose=${value}`);
    assert.is(res.status, 400, value);
    assert.is(res.headers.get('content-type'), 'application/json');
    const { error } = await res.json();
    assert.match(error, /^verbose=".*" is not valid: use \?verbose/);
    assert.not.match(error, /\n/);
    assert.ok(error.length < 200, 'a long value is cut');
  }
});

test('/api/ready/<check> answers for that check alone: 200 or 503, every form', async () => {
  const readiness = createReadiness({ now: () => new Date(T0) });
  const setDatabase = readiness.define('database', { initial: 'connected', ready: ['connected'] });
  readiness.define('cache', { initial: 'down', ready: ['up'] });
  const app = createHealthRoutes({ readiness, environment: 'production', version: 'v1' });
  let res = await app.request('/api/ready/database');
  assert.is(res.status, 200);
  const body = await res.json();
  assert.equal(body, {
    status: 'ready',
    timestamp: body.timestamp,
    checks: { database: 'connected' },
    details: { database: { ok: true, since: T0 } },
  });
  assert.is((await app.request('/api/ready')).status, 503, 'the service as a whole is not ready');
  res = await app.request('/api/ready/cache');
  assert.is(res.status, 503);
  assert.equal((await res.json()).checks, { cache: 'down' });
  setDatabase('disconnected', 'heartbeat failed');
  res = await app.request('/api/ready/database?verbose');
  assert.is(res.status, 503);
  assert.is(
    await res.text(),
    `[-]database failed: disconnected since ${T0}: heartbeat failed\nreadiness check failed: not_ready\n`,
  );
  res = await app.request('/api/ready/database', { headers: { accept: 'application/health+json' } });
  assert.is(res.status, 503);
  assert.equal((await res.json()).checks.database[0].output, 'heartbeat failed');
  assert.is((await app.request('/api/ready/database', { method: 'HEAD' })).status, 503);
  assert.is((await app.request('/api/ready/database', { method: 'POST' })).status, 405);
});

test('an unknown check on /api/ready/<check> is 404 naming the known ones, never 503', async () => {
  const { app } = setup();
  for (const name of ['nope', '__proto__', 'toString', 'database%20', '%3Cscript%3E']) {
    const res = await app.request(`/api/ready/${name}`);
    assert.is(res.status, 404, name);
    assert.match((await res.json()).error, /^no readiness check ".*"; the checks are: database$/);
  }
});

test('Accept: application/health+json gets the IETF draft shape with the same status code', async () => {
  const { app, setDatabase } = setup();
  setDatabase('connected');
  setDatabase('disconnected', 'client closed');
  let res = await app.request('/api/ready', { headers: { accept: 'application/health+json' } });
  assert.is(res.status, 503);
  assert.is(res.headers.get('content-type'), 'application/health+json');
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.equal(await res.json(), {
    status: 'fail',
    releaseId: '0123456789ab',
    checks: {
      database: [
        {
          componentType: 'component',
          observedValue: 'disconnected',
          status: 'fail',
          time: T0,
          output: 'client closed',
        },
      ],
    },
  });
  setDatabase('connected');
  res = await app.request('/api/ready', { headers: { accept: 'application/json;q=0.5, application/health+json' } });
  assert.is(res.status, 200);
  assert.equal(await res.json(), {
    status: 'pass',
    releaseId: '0123456789ab',
    checks: { database: [{ componentType: 'component', observedValue: 'connected', status: 'pass', time: T0 }] },
  });
});

test('an Accept the service cannot satisfy gets the default JSON', async () => {
  const { app } = setup();
  const accepts = [
    'text/html',
    'application/xml',
    'application/health+json;q=0',
    'application/json, application/health+json;q=0.1',
    ';;;,,,',
    'application/health+json;q=abc',
  ];
  for (const accept of accepts) {
    const res = await app.request('/api/ready', { headers: { accept } });
    assert.is(res.status, 503, accept);
    assert.is(res.headers.get('content-type'), 'application/json', accept);
    assert.is((await res.json()).status, 'not_ready', accept);
  }
});

test('the readiness answers are built once per change, not per probe', async () => {
  const { app, readiness } = setup();
  const first = readiness.snapshot();
  await app.request('/api/ready');
  await app.request('/api/ready?verbose');
  assert.ok(readiness.snapshot() === first, 'probes do not rebuild the snapshot');
});
test.run();
