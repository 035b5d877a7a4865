// Health and readiness bodies judged against the contract: what passes, the state a readiness answer reports, and
// the exact reason for what does not (the lines the smoke prints and the frontend's status page shows).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { failingChecks, judgeLiveness, judgeReadiness, REQUIRED_CHECKS } from './health-judge.ts';
import type { HttpResponse } from './http-get.ts';

const res = (status: number, body: unknown, type = 'application/json'): HttpResponse => ({
  url: 'http://127.0.0.1:1/api/health',
  status,
  statusText: { 200: 'OK', 500: 'Internal Server Error', 503: 'Service Unavailable' }[status] ?? '',
  headers: { 'content-type': type },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const health = { status: 'ok', timestamp: '2025-01-02T03:04:05.678Z', uptime: 12.5, environment: 'production' };
const ready = { status: 'ready', timestamp: '2025-01-02T03:04:05.678Z', checks: { database: 'connected' } };
const judgeHealth = (answer: HttpResponse) => judgeLiveness(answer).reasons;
const judgeReady = (answer: HttpResponse) => judgeReadiness(answer).reasons;
const stateOf = (answer: HttpResponse) => judgeReadiness(answer).state;

test('a contract liveness body passes, with or without the optional database object', () => {
  assert.equal(judgeHealth(res(200, health)), []);
  assert.equal(judgeHealth(res(200, { ...health, database: { status: 'connected', name: 'app' } })), []);
  assert.equal(judgeHealth(res(200, { ...health, uptime: 0, environment: 'local' })), []);
});

test('liveness: wrong status and wrong types are named field by field on one line', () => {
  assert.equal(judgeHealth(res(200, { ...health, status: 'degraded' })), [
    'wrong body: status is "degraded" (string), expected "ok"',
  ]);
  assert.equal(judgeHealth(res(200, { status: 'ok', timestamp: 1700000000, uptime: '12', environment: null })), [
    'wrong body: timestamp is 1700000000 (number), expected an ISO 8601 date-time string; ' +
      'uptime is "12" (string), expected a number; ' +
      'environment is null (null), expected a string',
  ]);
  assert.equal(judgeHealth(res(200, { ...health, timestamp: 'yesterday' })), [
    'wrong body: timestamp is "yesterday" (string), expected an ISO 8601 date-time string',
  ]);
  assert.equal(judgeHealth(res(200, { ...health, timestamp: '2025-13-45T99:99:99Z' })).length, 1);
  assert.equal(judgeHealth(res(200, { status: 'ok' })), [
    'wrong body: timestamp is missing, expected an ISO 8601 date-time string; ' +
      'uptime is missing, expected a number; environment is missing, expected a string',
  ]);
});

test('liveness: HTML, non-objects and non-200 answers fail with what was received', () => {
  assert.equal(judgeHealth(res(200, '<!doctype html><p>hi</p>', 'text/html')), [
    'body is not JSON (text/html): "<!doctype html><p>hi</p>"',
  ]);
  assert.equal(judgeHealth(res(200, '', 'text/plain')), ['body is not JSON (text/plain): (empty)']);
  assert.equal(judgeHealth(res(200, ['ok'])), ['body is JSON but not an object: "[\\"ok\\"]"']);
  assert.equal(judgeHealth(res(200, 'null')), ['body is JSON but not an object: "null"']);
  assert.equal(judgeHealth(res(500, 'boom', 'text/plain')), ['HTTP 500 Internal Server Error', 'body: "boom"']);
  const long = judgeHealth(res(200, `<html>${'x'.repeat(500)}</html>`, 'text/html'))[0]!;
  assert.ok(long.length < 140, long);
});

test('readiness: ready passes; 503 names the failing checks', () => {
  assert.equal(judgeReady(res(200, ready)), []);
  assert.equal(judgeReady(res(503, { status: 'not ready', checks: { database: 'disconnected' } })), [
    'HTTP 503 Service Unavailable',
    'checks: database=disconnected',
  ]);
  // Only the failing dependency is shown when another one is fine.
  assert.equal(judgeReady(res(503, { status: 'degraded', checks: { serial: 'emulator', backend: 'disconnected' } })), [
    'HTTP 503 Service Unavailable',
    'checks: backend=disconnected',
  ]);
  assert.equal(judgeReady(res(503, 'Service Unavailable', 'text/plain')), [
    'HTTP 503 Service Unavailable',
    'body: "Service Unavailable"',
  ]);
});

test('readiness: a 200 that is not "ready" or lacks checks fails', () => {
  assert.equal(judgeReady(res(200, { ...ready, status: 'starting' })), [
    'wrong body: status is "starting" (string), expected "ready"',
    'checks: database=connected',
  ]);
  assert.equal(judgeReady(res(200, { status: 'ready' })), ['wrong body: checks is missing, expected an object']);
  assert.equal(judgeReady(res(200, { status: 'ready', checks: ['database'] })), [
    'wrong body: checks is ["database"] (array), expected an object',
  ]);
  assert.equal(judgeReady(res(200, health)), [
    'wrong body: status is "ok" (string), expected "ready"; checks is missing, expected an object',
  ]);
});

test('liveness: live exactly when there is no reason, with the parsed body for its details', () => {
  const detail = { ...health, database: { status: 'connected', name: 'app' } };
  assert.equal(judgeLiveness(res(200, detail)), {
    live: true,
    reasons: [],
    release: null,
    body: detail,
    version: null,
  });
  const failing = judgeLiveness(res(500, { error: 'boom' }));
  assert.is(failing.live, false);
  assert.equal(failing.body, { error: 'boom' });
  assert.is(judgeLiveness(res(200, 'nope', 'text/plain')).body, undefined);
});

test('readiness states: ready, not_ready and shutting_down only on a 503 that says so, else failing', () => {
  assert.is(stateOf(res(200, ready)), 'ready');
  assert.is(stateOf(res(503, { status: 'not_ready', checks: { database: 'disconnected' } })), 'not_ready');
  assert.is(stateOf(res(503, { status: 'shutting_down', checks: {} })), 'shutting_down');
  // A 200 must say ready, a 503 must say why not, and only a 503 may: anything else is no readiness answer.
  assert.is(stateOf(res(200, { ...ready, status: 'not_ready' })), 'failing');
  assert.is(stateOf(res(200, { status: 'ready' })), 'failing');
  assert.is(stateOf(res(503, { status: 'not ready', checks: {} })), 'failing');
  assert.is(stateOf(res(500, { status: 'not_ready', checks: {} })), 'failing');
  assert.is(stateOf(res(503, 'Service Unavailable', 'text/plain')), 'failing');
});

test('readiness checks: every string-valued check as reported, for any state', () => {
  const body = { status: 'not_ready', checks: { serial: 'emulator', backend: 'disconnected', odd: 3 } };
  assert.equal(judgeReadiness(res(503, body)).checks, { serial: 'emulator', backend: 'disconnected' });
  assert.equal(judgeReadiness(res(200, ready)).checks, { database: 'connected' });
  assert.equal(judgeReadiness(res(200, '<html>', 'text/html')).checks, {});
});

test('readiness: the checks a service always reports are required, a swapped URL fails naming the missing one', () => {
  const device = { status: 'ready', timestamp: ready.timestamp, checks: { serial: 'connected', backend: 'connected' } };
  assert.equal(judgeReadiness(res(200, ready), REQUIRED_CHECKS.backend), {
    state: 'ready',
    reasons: [],
    checks: ready.checks,
    judged: { database: { ok: true, since: null, reason: null } },
  });
  assert.equal(judgeReadiness(res(200, device), REQUIRED_CHECKS.device).state, 'ready');
  // The device service's body where the backend's is expected, and the other way round.
  assert.equal(judgeReadiness(res(200, device), REQUIRED_CHECKS.backend), {
    state: 'failing',
    reasons: ['wrong body: checks.database is missing', 'checks: serial=connected, backend=connected'],
    checks: device.checks,
    judged: { serial: { ok: true, since: null, reason: null }, backend: { ok: true, since: null, reason: null } },
  });
  assert.equal(judgeReadiness(res(200, ready), REQUIRED_CHECKS.device).reasons, [
    'wrong body: checks.serial is missing; checks.backend is missing',
    'checks: database=connected',
  ]);
  // A 503 of the wrong service stays not ready, and also says which check it lacks.
  const degraded = { status: 'not_ready', checks: { serial: 'emulator', backend: 'disconnected' } };
  assert.equal(judgeReadiness(res(503, degraded), REQUIRED_CHECKS.backend), {
    state: 'not_ready',
    reasons: ['HTTP 503 Service Unavailable', 'checks.database is missing', 'checks: backend=disconnected'],
    checks: degraded.checks,
    judged: { serial: { ok: true, since: null, reason: null }, backend: { ok: false, since: null, reason: null } },
  });
  // A check in a failing state is still reported: required means listed, not fine.
  const down = { status: 'not_ready', checks: { database: 'disconnected' } };
  assert.equal(judgeReadiness(res(503, down), REQUIRED_CHECKS.backend).reasons, [
    'HTTP 503 Service Unavailable',
    'checks: database=disconnected',
  ]);
  assert.equal(judgeReady(res(200, device)), [], 'nothing is required unless asked');
});

test('a body starting with a byte order mark is read as JSON (RFC 8259 lets a parser skip it)', () => {
  const bom = (body: unknown) => res(200, `\uFEFF${JSON.stringify(body)}`);
  assert.equal(judgeHealth(bom(health)), []);
  assert.equal(judgeReadiness(bom(ready), REQUIRED_CHECKS.backend).state, 'ready');
  assert.equal(judgeLiveness(bom(health)).body, health);
  // Only at the start: a BOM anywhere else is not JSON.
  assert.equal(judgeHealth(res(200, ` \uFEFF${JSON.stringify(health)}`)).length, 1);
});

test('a number too large for a double is named as a non-finite number, not as null', () => {
  const body = (uptime: string) =>
    `{"status":"ok","timestamp":"${health.timestamp}","uptime":${uptime},"environment":"x"}`;
  assert.equal(judgeHealth(res(200, body('1e400'))), [
    'wrong body: uptime is Infinity (a non-finite number), expected a number',
  ]);
  assert.equal(judgeHealth(res(200, body('-1e400'))), [
    'wrong body: uptime is -Infinity (a non-finite number), expected a number',
  ]);
  assert.equal(judgeReady(res(503, '{"status":"not_ready","checks":{"database":1e999}}')), [
    'HTTP 503 Service Unavailable',
    'checks: database=Infinity',
  ]);
});

test("readiness: the service's own judgement (details.ok) decides which checks fail, whatever the state's name", () => {
  const since = '2026-11-25T10:00:00.000Z';
  const body = {
    status: 'not_ready',
    checks: { spool: 'writable', backend: 'draining', serial: 'connected' },
    details: {
      spool: { ok: true, since },
      backend: { ok: false, since, reason: 'the backend refused the hello' },
      serial: { ok: false, since },
    },
  };
  const judged = judgeReadiness(res(503, body));
  assert.equal(judged.reasons, ['HTTP 503 Service Unavailable', 'checks: backend=draining, serial=connected']);
  assert.equal(judged.judged, {
    spool: { ok: true, since, reason: null },
    backend: { ok: false, since, reason: 'the backend refused the hello' },
    serial: { ok: false, since, reason: null },
  });
});

test('readiness: without details (or a malformed entry) the known-good list judges; writable is good', () => {
  const body = { status: 'not_ready', checks: { spool: 'writable', backend: 'disconnected', serial: 'emulator' } };
  assert.equal(judgeReadiness(res(503, body)).reasons, [
    'HTTP 503 Service Unavailable',
    'checks: backend=disconnected',
  ]);
  const malformed = { ...body, details: { backend: { ok: 'yes' }, spool: null, serial: [] } };
  const judged = judgeReadiness(res(503, malformed)).judged;
  assert.equal(Object.fromEntries(Object.entries(judged).map(([name, j]) => [name, j.ok])), {
    spool: true,
    backend: false,
    serial: true,
  });
  assert.equal(judgeReadiness(res(503, { ...body, details: 'nope' })).judged.backend, {
    ok: false,
    since: null,
    reason: null,
  });
});

test('failingChecks: the names the service flags when given, else the known-good list', () => {
  const checks = { spool: 'writable', backend: 'connected', database: 'degraded' };
  assert.equal(failingChecks(checks), [['database', 'degraded']]);
  assert.equal(failingChecks(checks, ['backend']), [['backend', 'connected']]);
  assert.equal(failingChecks(checks, []), []);
  assert.equal(failingChecks(checks, null), [['database', 'degraded']]);
});

test('liveness: the release that answered, and its own line when it is not the one expected; live is liveness', () => {
  const sha = '0123456789abcdef0123456789abcdef01234567';
  const answered = res(200, { ...health, version: '0123456789ab' });
  const release = (answer: HttpResponse) => judgeLiveness(answer, { expectVersion: 'v2' }).release;
  assert.is(judgeLiveness(answered).version, '0123456789ab');
  assert.is(judgeLiveness(answered).release, null, 'no expectation: any release passes');
  assert.is(judgeLiveness(answered, { expectVersion: sha }).release, null, 'a commit matches its abbreviation');
  const old = judgeLiveness(answered, { expectVersion: 'v2' });
  assert.equal(
    { live: old.live, reasons: old.reasons, release: old.release },
    { live: true, reasons: [], release: 'answered by release 0123456789ab, expected v2' },
    'an old release is alive: live and its reasons agree, the release is named apart',
  );
  assert.is(release(res(200, health)), 'answered by no release (the body has no version), expected v2');
  assert.is(judgeLiveness(res(200, health)).version, null);
  assert.is(release(res(200, { ...health, version: 'a b\nc' })), 'answered by release "a b\\nc", expected v2');
  assert.is(release(res(200, { ...health, version: 7 })), 'answered by release 7 (number), expected v2');
  const wrongAndOld = judgeLiveness(res(200, { ...health, uptime: 'x', version: 'v1' }), { expectVersion: 'v2' });
  assert.equal(wrongAndOld.reasons, ['wrong body: uptime is "x" (string), expected a number']);
  assert.is(wrongAndOld.release, 'answered by release v1, expected v2');
  assert.not.ok(wrongAndOld.live);
});

test('liveness: the timestamp must be ISO 8601, even where Date.parse would read it', () => {
  for (const timestamp of [
    '2025-01-02T03:04Z',
    '2025-01-02T03:04:05Z',
    '2025-01-02T03:04:05.1+01:00',
    '2025-01-02T03:04:05-0130',
  ])
    assert.equal(judgeHealth(res(200, { ...health, timestamp })), [], timestamp);
  for (const timestamp of [
    'Thu, 02 Jan 2025 03:04:05 GMT',
    '2025-01-02',
    '2025-01-02 03:04:05Z',
    '2025-01-02T03:04:05+1:00',
  ])
    assert.equal(judgeHealth(res(200, { ...health, timestamp })), [
      `wrong body: timestamp is ${JSON.stringify(timestamp)} (string), expected an ISO 8601 date-time string`,
    ]);
  assert.equal(judgeHealth(res(200, { ...health, timestamp: ['2025-01-02T03:04:05Z'] })), [
    'wrong body: timestamp is ["2025-01-02T03:04:05Z"] (array), expected an ISO 8601 date-time string',
  ]);
});

test('liveness: a JSON scalar is not an object, a missing content-type is named, and a bad body is cut at 80', () => {
  assert.equal(judgeHealth(res(200, '3')), ['body is JSON but not an object: "3"']);
  assert.equal(judgeLiveness({ status: 200, statusText: 'OK', headers: {}, body: 'nope' }).reasons, [
    'body is not JSON (no content-type): "nope"',
  ]);
  assert.equal(judgeHealth(res(500, '  a \n\n b ', 'text/plain')), ['HTTP 500 Internal Server Error', 'body: "a b"']);
  assert.equal(judgeHealth(res(500, 'x'.repeat(80), 'text/plain'))[1], `body: "${'x'.repeat(80)}"`);
  assert.equal(judgeHealth(res(500, 'x'.repeat(81), 'text/plain'))[1], `body: "${'x'.repeat(80)}…"`);
  assert.equal(judgeHealth(res(200, { ...health, status: 's'.repeat(38) })), [
    `wrong body: status is "${'s'.repeat(38)}" (string), expected "ok"`,
  ]);
  assert.equal(judgeHealth(res(200, { ...health, status: 's'.repeat(39) })), [
    `wrong body: status is "${'s'.repeat(39)}… (string), expected "ok"`,
  ]);
});

test('an empty or blank non-200 body adds no body line; a status without a reason phrase is just its number', () => {
  assert.equal(judgeHealth(res(500, '', 'text/plain')), ['HTTP 500 Internal Server Error']);
  assert.equal(judgeReady(res(503, ' \n', 'text/plain')), ['HTTP 503 Service Unavailable']);
  assert.equal(judgeHealth(res(502, '', 'text/plain')), ['HTTP 502']);
  assert.equal(judgeLiveness(res(500, 'boom', 'text/plain'), { expectVersion: 'v2' }).reasons, [
    'HTTP 500 Internal Server Error',
    'body: "boom"',
  ]);
  assert.is(
    judgeLiveness(res(500, 'boom', 'text/plain'), { expectVersion: 'v2' }).release,
    null,
    'no body, no release',
  );
});

test('readiness: a body that is not a JSON object fails with what was received, and no checks', () => {
  assert.equal(judgeReadiness(res(200, '<html>', 'text/html')), {
    state: 'failing',
    reasons: ['body is not JSON (text/html): "<html>"'],
    checks: {},
    judged: {},
  });
});

test('readiness: checks null, missing or an array is no checks object, with or without required checks', () => {
  assert.equal(judgeReadiness(res(200, { status: 'ready', checks: null }), REQUIRED_CHECKS.backend), {
    state: 'failing',
    reasons: ['wrong body: checks is null (null), expected an object'],
    checks: {},
    judged: {},
  });
  assert.equal(judgeReadiness(res(200, { status: 'ready' }), REQUIRED_CHECKS.backend).reasons, [
    'wrong body: checks is missing, expected an object',
  ]);
  assert.equal(judgeReadiness(res(200, { status: 'ready', checks: ['database'] }), REQUIRED_CHECKS.backend).reasons, [
    'wrong body: checks is ["database"] (array), expected an object',
  ]);
  assert.equal(judgeReadiness(res(503, { status: 'not_ready', checks: null })), {
    state: 'not_ready',
    reasons: ['HTTP 503 Service Unavailable'],
    checks: {},
    judged: {},
  });
  assert.equal(judgeReady(res(503, { status: 'shutting_down', checks: {} })), ['HTTP 503 Service Unavailable']);
  assert.equal(judgeReady(res(503, { status: 'not_ready', checks: { database: { state: 'down' } } })), [
    'HTTP 503 Service Unavailable',
    'checks: database={"state":"down"}',
  ]);
  assert.equal(judgeReadiness(res(503, { status: 'not_ready', checks: { database: 'up' }, details: null })).judged, {
    database: { ok: true, since: null, reason: null },
  });
});

test('readiness: each state the known-good list knows is fine, and nothing else', () => {
  for (const state of ['connected', 'emulator', 'ok', 'ready', 'up', 'open', 'healthy', 'writable']) {
    assert.equal(judgeReadiness(res(200, { status: 'ready', checks: { database: state } })).judged, {
      database: { ok: true, since: null, reason: null },
    });
    assert.equal(failingChecks({ database: state }), [], state);
  }
  assert.equal(failingChecks({ database: 'OK', other: 1 }), [
    ['database', 'OK'],
    ['other', 1],
  ]);
});

test('liveness: a long or numeric release that answered is shown cut, or typed', () => {
  const long = 'a b'.repeat(30);
  const release = (version: unknown, expectVersion = 'v2') =>
    judgeLiveness(res(200, { ...health, version }), { expectVersion }).release;
  assert.is(release(long.slice(0, 60)), `answered by release "${long.slice(0, 60)}", expected v2`);
  assert.is(release(`${long}x`), `answered by release "${long.slice(0, 60)}…", expected v2`);
  assert.is(release(1234567, '1234567'), 'answered by release 1234567 (number), expected 1234567');
});

test.run();
