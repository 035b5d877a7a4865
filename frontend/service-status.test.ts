import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkService } from './service-status.ts';
import { healthyBody, readyBody, startFakeService, type FakeService } from '../test/support/fake-http-server.ts';
import { withDeadline } from '../test/support/deadline.ts';

const open: FakeService[] = [];
const fake = async (...args: Parameters<typeof startFakeService>) => {
  const service = await startFakeService(...args);
  open.push(service);
  return service;
};
test.after.each(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

test('a live, ready backend: liveness ok, readiness ready, checks, uptime, environment, database detail', async () => {
  const backend = await fake({
    '/api/health': { status: 200, body: healthyBody({ database: { status: 'connected', name: 'health' } }) },
    '/api/ready': { status: 200, body: readyBody('ready', { database: 'connected' }) },
  });
  const status = await checkService('backend', backend.url, 1000);
  assert.equal(
    { ...status, ms: 0 },
    {
      name: 'backend',
      url: backend.url,
      liveness: 'ok',
      readiness: 'ready',
      checks: { database: 'connected' },
      details: { database: { ok: true, since: null, reason: null } },
      version: null,
      uptime: 125.5,
      environment: 'production',
      database: { status: 'connected', name: 'health' },
      backlog: null,
      problem: null,
      ms: 0,
    },
  );
  assert.equal(backend.hits.sort(), ['/api/health', '/api/ready']);
});

test("a service's release and its own judgement of each check, since when and why, reach the document", async () => {
  const since = '2026-11-25T10:00:00.000Z';
  const device = await fake({
    '/api/health': { status: 200, body: healthyBody({ version: '0123456789ab' }) },
    '/api/ready': {
      status: 503,
      body: {
        ...readyBody('not_ready', { serial: 'emulator', backend: 'unauthorized', spool: 'writable' }),
        details: {
          serial: { ok: true, since },
          backend: { ok: false, since, reason: 'the backend refused the token (401)' },
          spool: { ok: true, since },
        },
      },
    },
  });
  const status = await checkService('device', device.url, 1000);
  assert.is(status.version, '0123456789ab');
  assert.equal(status.details, {
    serial: { ok: true, since, reason: null },
    backend: { ok: false, since, reason: 'the backend refused the token (401)' },
    spool: { ok: true, since, reason: null },
  });
});

test("status.json, which anyone may read, shows the service's URL and problem without its password", async () => {
  const backend = await fake({ '/api/health': { status: 200, body: healthyBody() } });
  const status = await checkService('backend', backend.url.replace('//', '//ci:S3cret@'), 1000);
  assert.not.match(JSON.stringify(status), 'S3cret');
  assert.is(status.url, backend.url.replace('//', '//ci:***@'));
});

test("the device service's backlog comes from its liveness body; partial or malformed counts are handled", async () => {
  const device = await fake({
    '/api/health': {
      status: 200,
      body: healthyBody({ readings: { unacknowledged: 12, spoolBytes: 4096, dropped: 0 } }),
    },
    '/api/ready': { status: 200, body: readyBody('ready', { serial: 'emulator', backend: 'connected' }) },
  });
  const backlog = async (readings: unknown) => {
    device.routes['/api/health'] = { status: 200, body: healthyBody({ readings }) };
    return (await checkService('device', device.url, 1000)).backlog;
  };
  assert.equal(await backlog({ unacknowledged: 12, spoolBytes: 4096, dropped: 0 }), {
    unacknowledged: 12,
    spoolBytes: 4096,
    dropped: 0,
  });
  // Only the count is required; the other two are shown when present.
  assert.equal(await backlog({ unacknowledged: 3 }), { unacknowledged: 3, spoolBytes: null, dropped: null });
  assert.equal(await backlog({ unacknowledged: 3, spoolBytes: -1, dropped: 1.5 }), {
    unacknowledged: 3,
    spoolBytes: null,
    dropped: null,
  });
  for (const bad of [undefined, null, 7, [], {}, { unacknowledged: '12' }, { unacknowledged: -1 }]) {
    assert.is(await backlog(bad), null, JSON.stringify(bad));
  }
  // A liveness that fails carries no detail at all.
  device.routes['/api/health'] = { status: 500, body: { status: 'ok', readings: { unacknowledged: 1 } } };
  assert.is((await checkService('device', device.url, 1000)).backlog, null);
});

test('503 not_ready keeps the checks and names them in the problem', async () => {
  const device = await fake({
    '/api/health': { status: 200, body: healthyBody() },
    '/api/ready': { status: 503, body: readyBody('not_ready', { serial: 'emulator', backend: 'disconnected' }) },
  });
  const status = await checkService('device', device.url, 1000);
  assert.is(status.liveness, 'ok');
  assert.is(status.readiness, 'not_ready');
  assert.equal(status.checks, { serial: 'emulator', backend: 'disconnected' });
  assert.is(status.problem, 'not ready (serial: emulator, backend: disconnected)');
});

test('503 shutting_down is reported as such', async () => {
  const backend = await fake({
    '/api/health': { status: 200, body: healthyBody() },
    '/api/ready': { status: 503, body: readyBody('shutting_down', { database: 'connected' }) },
  });
  assert.is((await checkService('backend', backend.url, 1000)).readiness, 'shutting_down');
});

test('a closed port is unreachable: connection refused, not a timeout', async () => {
  const gone = await fake({});
  await gone.close();
  const status = await checkService('backend', gone.url, 1500);
  assert.is(status.liveness, 'unreachable');
  assert.is(status.readiness, 'unreachable');
  // Refused, not timed out ("no response within 1500ms"): it did not wait for the deadline.
  assert.is(status.problem, `unreachable: connection refused at 127.0.0.1:${gone.port} (is the service running?)`);
});

test('a service that accepts and never answers is unreachable, the reason naming the timeout', async () => {
  const hung = await fake({ '/api/health': 'hang', '/api/ready': 'hang' });
  const status = await withDeadline(
    checkService('backend', hung.url, 300),
    5000,
    'checkService against a hung service',
  );
  assert.is(status.liveness, 'unreachable');
  assert.is(status.readiness, 'unreachable');
  assert.is(status.problem, 'unreachable: no response within 300ms');
});

test('headers then a stalled body is still bounded by the timeout', async () => {
  const stalled = await fake({
    '/api/health': 'stall-body',
    '/api/ready': { status: 200, body: readyBody('ready', {}) },
  });
  const status = await withDeadline(
    checkService('backend', stalled.url, 300),
    3000,
    'checkService against a stalled body',
  );
  assert.is(status.liveness, 'unreachable');
  assert.is(status.readiness, 'ready');
  assert.is(status.problem, 'liveness: body not complete within 300ms (15 bytes received)');
});

test('a service that answers 200 and then streams without end: unreachable, its body capped', async () => {
  const endless = await fake({ '/api/health': 'endless-body', '/api/ready': 'endless-body' });
  const status = await withDeadline(
    checkService('backend', endless.url, 2000),
    5000,
    'checkService against an endless body',
  );
  assert.equal([status.liveness, status.readiness], ['unreachable', 'unreachable']);
  assert.is(status.problem, 'unreachable: body too large: more than 65536 bytes');
});

test('a body trickled a byte at a time is still bounded by the timeout', async () => {
  const trickle = await fake({ '/api/health': 'trickle-body', '/api/ready': 'trickle-body' });
  const status = await withDeadline(
    checkService('device', trickle.url, 300),
    3000,
    'checkService against a trickled body',
  );
  assert.equal([status.liveness, status.readiness], ['unreachable', 'unreachable']);
  const stalled = 'body not complete within 300ms \\(\\d+ bytes received\\)';
  assert.match(
    status.problem ?? '',
    new RegExp(`^(unreachable: ${stalled}|liveness: ${stalled}; readiness: ${stalled})$`),
  );
});

test('answers that are not health responses are failing, with the HTTP status in the problem', async () => {
  const odd = await fake({
    '/api/health': { status: 500, body: { error: 'boom' } },
    '/api/ready': { status: 200, body: '<html>not json</html>' },
  });
  const status = await checkService('backend', odd.url, 1000);
  assert.is(status.liveness, 'failing');
  assert.is(status.readiness, 'failing');
  // The smoke's reasons (lib/health-judge.ts), which say what was wrong, not only that something was.
  assert.is(
    status.problem,
    'liveness: HTTP 500 Internal Server Error; body: "{\\"error\\":\\"boom\\"}"; ' +
      'readiness: body is JSON but not an object: "\\"<html>not json</html>\\""',
  );
  assert.equal(status.checks, {});
});

test('a body the smoke would fail is failing here too: one judge for both', async () => {
  const odd = await fake({
    '/api/health': { status: 200, body: { status: 'ok' } },
    '/api/ready': { status: 200, body: { status: 'ready' } },
  });
  const status = await checkService('backend', odd.url, 1000);
  assert.equal([status.liveness, status.readiness], ['failing', 'failing']);
  assert.is(
    status.problem,
    'liveness: wrong body: timestamp is missing, expected an ISO 8601 date-time string; ' +
      'uptime is missing, expected a number; environment is missing, expected a string; ' +
      'readiness: wrong body: checks is missing, expected an object',
  );
});

test('a 200 that says not_ready is not trusted as readiness', async () => {
  const odd = await fake({
    '/api/health': { status: 200, body: healthyBody() },
    '/api/ready': { status: 200, body: readyBody('not_ready', { database: 'disconnected' }) },
  });
  assert.is((await checkService('backend', odd.url, 1000)).readiness, 'failing');
});

test('a dropped connection is unreachable, with a reason', async () => {
  const rude = await fake({ '/api/health': 'drop', '/api/ready': 'drop' });
  const status = await checkService('device', rude.url, 1000);
  assert.is(status.liveness, 'unreachable');
  assert.is(status.problem, `unreachable: connection reset by 127.0.0.1:${rude.port} before a complete response`);
});

test('base URLs keep their path prefix and lose trailing slashes (lib/endpoint-url.ts)', async () => {
  const prefixed = await fake({
    '/backend/api/health': { status: 200, body: healthyBody() },
    '/backend/api/ready': { status: 200, body: readyBody('ready', {}) },
  });
  const status = await checkService('backend', `${prefixed.url}/backend//`, 1000);
  assert.equal([status.liveness, status.readiness], ['ok', 'ready']);
  assert.equal(prefixed.hits.sort(), ['/backend/api/health', '/backend/api/ready']);
});

test.run();
