// The backend's routes in-process through app.request(): no socket, no database, readiness set by hand.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from './app.ts';
import { inProcessDeviceRoutes } from '../test/support/in-process-device-routes.ts';
import { createReadiness } from '../lib/readiness.ts';
import { createLogger } from '../lib/logger.ts';
import { DatabaseUnavailableError } from './database/database-unavailable-error.ts';
import type { ReadingView } from './readings/reading-document.ts';
import type { ReadingStore } from './readings/reading-store.ts';

const READING: ReadingView = {
  deviceId: 'dev-1',
  session: 's1',
  seq: 7,
  timestamp: '2026-01-01T00:00:07.000Z',
  value: 'v7',
  receivedAt: '2026-01-01T00:00:07.100Z',
};

const READ_TOKEN = 'read-token-0123456789abcdef';
const OLD_TOKEN = 'read-token-rotated-out-0123';
const authorized = { headers: { Authorization: `Bearer ${READ_TOKEN}` } };

/** A store answering from fixed data, or failing as a database that is down does. */
function fakeStore(down = { now: false }) {
  const asked: unknown[] = [];
  const store: ReadingStore = {
    ensureIndexes: async () => {},
    insert: async () => ({ inserted: 0, duplicates: [] }),
    settled: async () => false,
    refusedThrough: async () => {},
    recordLosses: async () => 0,
    async readings(query) {
      asked.push(query);
      if (down.now) throw new DatabaseUnavailableError('not-connected', 'the database is not connected');
      return [READING];
    },
    async devices(query) {
      asked.push(query);
      if (down.now) throw new DatabaseUnavailableError('timeout', 'the database did not answer within 2000 ms');
      const { seq, timestamp, value, receivedAt } = READING;
      const device = {
        deviceId: 'dev-1',
        session: 's1',
        connected: false,
        lastReading: { seq, timestamp, value, receivedAt },
        readingsStored: 7,
        readingsLost: 0,
        backlog: null,
        lastSeenAt: null,
      };
      return { total: 1, devices: [device], next: null };
    },
    presence: async () => {},
    backfill: async () => 0,
  };
  return { store, asked, down };
}

function setup({ withDevices = true, environment = 'staging', readTokens = [READ_TOKEN] } = {}) {
  const lines: Record<string, any>[] = [];
  const log = createLogger({
    name: 'backend',
    environment: 'production',
    level: 'debug',
    stream: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  const readiness = createReadiness();
  const setDatabase = readiness.define('database', { initial: 'disconnected', ready: ['connected'] });
  const fake = fakeStore();
  const devices = withDevices
    ? inProcessDeviceRoutes({ log, store: fake.store, token: '0123456789abcdef0123' })
    : undefined;
  const app = createApp({
    readiness,
    environment,
    version: 'rel-7',
    log,
    databaseName: 'shop',
    devices,
    store: fake.store,
    readTokens,
  });
  return { app, readiness, setDatabase, lines, ...fake };
}

test('GET /api/health: 200 while the database is down, naming it and its state, never cached', async () => {
  const { app, setDatabase } = setup();
  const asked = Date.now();
  let res = await app.request('/api/health');
  const answered = Date.now();
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/json');
  assert.is(res.headers.get('cache-control'), 'no-store');
  const body = await res.json();
  assert.equal(Object.keys(body), ['status', 'timestamp', 'uptime', 'environment', 'version', 'database']);
  assert.is(body.version, 'rel-7');
  assert.is(body.status, 'ok');
  const at = Date.parse(body.timestamp);
  assert.ok(at >= asked && at <= answered, `the time of the answer, not ${body.timestamp}`);
  assert.type(body.uptime, 'number');
  assert.is(body.environment, 'staging');
  assert.equal(body.database, { status: 'disconnected', name: 'shop' });
  setDatabase('connected');
  res = await app.request('/api/health');
  assert.equal((await res.json()).database, { status: 'connected', name: 'shop' });
});

test('GET /api/ready: 503 until the database connects, 200 then, 503 shutting_down after shutDown', async () => {
  const { app, readiness, setDatabase } = setup();
  let res = await app.request('/api/ready');
  assert.is(res.status, 503);
  assert.is(res.headers.get('cache-control'), 'no-store');
  let body = await res.json();
  assert.is(body.status, 'not_ready');
  assert.equal(body.checks, { database: 'disconnected' });
  setDatabase('connected');
  res = await app.request('/api/ready');
  assert.is(res.status, 200);
  body = await res.json();
  assert.equal([body.status, body.checks], ['ready', { database: 'connected' }]);
  readiness.shutDown();
  res = await app.request('/api/ready');
  assert.is(res.status, 503);
  assert.is((await res.json()).status, 'shutting_down');
});

test('any other method on the probes: 405 with Allow: GET, HEAD and a JSON reason', async () => {
  const { app } = setup();
  for (const path of ['/api/health', '/api/ready']) {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const res = await app.request(path, { method });
      assert.is(res.status, 405, `${method} ${path}`);
      assert.is(res.headers.get('allow'), 'GET, HEAD');
      assert.equal(await res.json(), { error: `method ${method} is not allowed on ${path}; use GET or HEAD` });
    }
  }
});

test('GET /api/devices: a page of the devices from the database, never cached; no hub, no such route', async () => {
  const { app, asked } = setup();
  const res = await app.request('/api/devices', authorized);
  assert.is(res.status, 200);
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.equal(await res.json(), {
    total: 1,
    devices: [
      {
        deviceId: 'dev-1',
        session: 's1',
        connected: false,
        lastReading: {
          seq: 7,
          timestamp: '2026-01-01T00:00:07.000Z',
          value: 'v7',
          receivedAt: '2026-01-01T00:00:07.100Z',
        },
        readingsStored: 7,
        readingsLost: 0,
        backlog: null,
        lastSeenAt: null,
      },
    ],
    next: null,
  });
  assert.is((await app.request('/api/devices?limit=5&after=dev-1', authorized)).status, 200);
  assert.is((await app.request('/api/devices?attention=10', authorized)).status, 200);
  assert.equal(asked, [{ limit: 100 }, { limit: 5, after: 'dev-1' }, { attention: 10 }]);
  const without = await setup({ withDevices: false }).app.request('/api/devices', authorized);
  assert.is(without.status, 404);
  assert.equal(await without.json(), { error: 'no route for GET /api/devices' });
});

test('GET /api/devices with a bad limit, after or attention: 400 with one line, the store not asked', async () => {
  const { app, asked } = setup();
  for (const [query, error] of [
    ['limit=0', 'limit must be a whole number from 1 to 1000'],
    ['limit=1001', 'limit must be a whole number from 1 to 1000'],
    ['after=a%2Fb', "after must be a device id: letters, digits, '.', '_' and '-', 1 to 256 characters"],
    ['attention=101', 'attention must be a whole number from 1 to 100'],
    ['attention=5&limit=5', 'attention takes neither limit nor after'],
    ['limit=1&limit=2', 'limit is given more than once'],
    ['page=2', 'unknown parameter "page": expected limit, after, attention'],
  ]) {
    const res = await app.request(`/api/devices?${query}`, authorized);
    assert.is(res.status, 400, query);
    assert.equal(await res.json(), { error }, query);
  }
  assert.equal(asked, []);
});

test('GET /api/readings: the query as the store gets it; defaults: limit 100, no before', async () => {
  const { app, asked } = setup();
  let res = await app.request('/api/readings?deviceId=dev-1', authorized);
  assert.is(res.status, 200);
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.equal(await res.json(), { readings: [READING] });
  res = await app.request('/api/readings?deviceId=dev-1&limit=1000&before=42', authorized);
  res = await app.request('/api/readings?deviceId=dev%2E1&limit=1&before=2026-01-01T00:00:00%2B01:00', authorized);
  assert.equal(asked, [
    { deviceId: 'dev-1', limit: 100 },
    { deviceId: 'dev-1', limit: 1000, before: { seq: 42 } },
    { deviceId: 'dev.1', limit: 1, before: { time: new Date('2025-12-31T23:00:00Z') } },
  ]);
});

test('GET /api/readings: a bad query value is a 400 with one line naming it; the store is not asked', async () => {
  const { app, asked } = setup();
  const cases: Array<[string, string]> = [
    ['limit=0', 'limit must be a whole number from 1 to 1000, got "0"'],
    ['limit=100000', 'limit must be a whole number from 1 to 1000, got "100000"'],
    ['limit=abc', 'limit must be a whole number from 1 to 1000, got "abc"'],
    ['limit=-1', 'limit must be a whole number from 1 to 1000, got "-1"'],
    ['limit=1.5', 'limit must be a whole number from 1 to 1000, got "1.5"'],
    ['limit=', 'limit must be a whole number from 1 to 1000, got ""'],
    [
      'before=yesterday',
      'before must be a sequence number (1 or more) or an ISO 8601 time such as 2026-01-01T00:00:00Z, got "yesterday"',
    ],
    [
      'before=2026-02-30T00:00:00Z',
      'before must be a sequence number (1 or more) or an ISO 8601 time such as 2026-01-01T00:00:00Z, ' +
        'got "2026-02-30T00:00:00Z"',
    ],
    [
      'before=0',
      'before must be a sequence number (1 or more) or an ISO 8601 time such as 2026-01-01T00:00:00Z, got "0"',
    ],
    ['limit=5&limit=6', 'limit is given more than once'],
    ['limt=5', 'unknown parameter "limt": expected deviceId, limit, before'],
  ];
  for (const [query, error] of cases) {
    const res = await app.request(`/api/readings?deviceId=dev-1&${query}`, authorized);
    assert.is(res.status, 400, query);
    assert.equal(await res.json(), { error }, query);
  }
  for (const [query, error] of [
    ['', 'deviceId is required, e.g. /api/readings?deviceId=dev-1'],
    ['?deviceId=', 'deviceId is required, e.g. /api/readings?deviceId=dev-1'],
    [`?deviceId=${'d'.repeat(10 * 1024)}`, 'deviceId is longer than 256 characters (10240)'],
    [
      '?deviceId=K%C3%BCche%201',
      `deviceId must be letters, digits, '.', '_' and '-', 1 to 256 characters, got "Küche 1"`,
    ],
    ['?deviceId=dev%0A1', `deviceId must be letters, digits, '.', '_' and '-', 1 to 256 characters, got "dev\\n1"`],
  ] as Array<[string, string]>) {
    const res = await app.request(`/api/readings${query}`, authorized);
    assert.is(res.status, 400, query.slice(0, 30));
    const body = await res.text();
    assert.equal(JSON.parse(body), { error });
    assert.not.match(body, /\n/);
  }
  const garbage = await app.request(`/api/readings?deviceId=dev-1&before=${'9'.repeat(5000)}`, authorized);
  assert.is(garbage.status, 400);
  assert.ok((await garbage.text()).length < 200, 'the value is cut short in the error');
  assert.equal(asked, []);
});

test('a database that is down: 503, one line, Retry-After; summed, not an error line per request', async () => {
  const { app, down, lines } = setup();
  down.now = true;
  for (const [path, error] of [
    ['/api/readings?deviceId=dev-1', 'database unavailable: the database is not connected'],
    ['/api/devices', 'database unavailable: the database did not answer within 2000 ms'],
  ] as Array<[string, string]>) {
    const res = await app.request(path, authorized);
    assert.is(res.status, 503, path);
    assert.is(res.headers.get('retry-after'), '1');
    assert.equal(await res.json(), { error }, path);
  }
  for (let i = 0; i < 20; i++) await app.request('/api/devices', authorized);
  assert.equal(
    lines.filter((l) => l.level >= 40).map((l) => [l.level, l.msg, l.count]),
    [[40, 'answered 1 read of stored readings with 503: the database is unavailable', 1]],
  );
});

test('read routes outside local mode, no valid token: 401, one line, a Bearer challenge, nothing listed', async () => {
  const { app, asked } = setup();
  const cases: Array<[Record<string, string>, string, string]> = [
    [{}, 'a read token is required: send Authorization: Bearer <token> (READ_TOKENS on the backend)', ''],
    [{ Authorization: `Basic ${btoa(`u:${READ_TOKEN}`)}` }, 'a read token is required', ''],
    [{ Authorization: 'Bearer wrong-token-0123456789' }, 'the read token is not valid', ', error="invalid_token"'],
    [{ Authorization: `Bearer ${OLD_TOKEN}` }, 'the read token is not valid', ', error="invalid_token"'],
    [{ Authorization: `Bearer ${READ_TOKEN.toUpperCase()}` }, 'the read token is not valid', ', error="invalid_token"'],
  ];
  for (const path of ['/api/readings?deviceId=dev-1', '/api/devices', '/api/devices?attention=5']) {
    for (const [headers, error, challenge] of cases) {
      const res = await app.request(path, { headers });
      assert.is(res.status, 401, `${path} ${JSON.stringify(headers)}`);
      assert.is(res.headers.get('www-authenticate'), `Bearer realm="device data"${challenge}`);
      const body = await res.text();
      assert.not.match(body, /\n./, 'one line');
      assert.ok(JSON.parse(body).error.startsWith(error), body);
      assert.not.ok(body.includes('dev-1') || body.includes(READ_TOKEN), body);
    }
  }
  assert.equal(asked, [], 'the store was never asked');
  const lower = await app.request('/api/devices', { headers: { Authorization: `bearer ${READ_TOKEN}` } });
  assert.is(lower.status, 200, 'the scheme is case-insensitive (RFC 7235)');
});

test('read routes without any READ_TOKENS outside local mode: 401 for every token; local mode: open', async () => {
  const { app, asked } = setup({ environment: 'production', readTokens: [] });
  for (const authorization of ['', 'Bearer ', `Bearer ${READ_TOKEN}`]) {
    assert.is((await app.request('/api/devices', { headers: { Authorization: authorization } })).status, 401);
  }
  assert.equal(asked, []);
  const local = setup({ environment: 'local', readTokens: [] }).app;
  assert.is((await local.request('/api/devices')).status, 200);
  assert.is((await local.request('/api/readings?deviceId=dev-1')).status, 200);
});

test('an unknown route: 404 in JSON, logged at info; passing probes only at debug', async () => {
  const { app, setDatabase, lines } = setup();
  setDatabase('connected');
  const res = await app.request('/nope?x=1');
  assert.is(res.status, 404);
  assert.equal(await res.json(), { error: 'no route for GET /nope' });
  await app.request('/api/ready');
  await app.request('/api/ready/database?verbose');
  await app.request('/api/ready/nope');
  const levels = lines.map((l) => [l.level, l.req?.url, l.res?.statusCode]);
  assert.equal(levels, [
    [30, '/nope', 404],
    [20, '/api/ready', 200],
    [20, '/api/ready/database', 200],
    [30, '/api/ready/nope', 404],
  ]);
});

test.run();
