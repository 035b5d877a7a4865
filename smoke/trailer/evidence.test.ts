// The cause of a failure in one phrase, from what a service logged or its health check printed, and the
// containers' part of the failure report, including a report that says the logs could not be read.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { causeOf, evidenceSection, healthCause, logCause, type Evidence } from './evidence.ts';

const json = (level: number, msg: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ level, time: 1700000000000, pid: 1, name: 'backend', msg, ...extra });

// What the backend logs when its database cannot be reached: the warning, then ordinary lines after it.
const backendLog = [
  json(40, 'DEVICE_TOKEN is not set: every device socket upgrade is refused (401)'),
  json(30, 'backend listening', { port: 3001 }),
  json(40, 'database unreachable; retrying', {
    database: 'mongodb://database:27017/app',
    reason: 'getaddrinfo ENOTFOUND database',
  }),
  json(30, 'request', { method: 'GET', path: '/api/ready', status: 503 }),
];

test('a JSON log: the last warning that gives a reason, over later warnings that give none', () => {
  assert.is(logCause(backendLog), 'getaddrinfo ENOTFOUND database');
  assert.is(logCause([...backendLog, json(40, 'slow request')]), 'getaddrinfo ENOTFOUND database');
  assert.is(
    logCause([json(50, 'write failed', { err: { message: 'EACCES: permission denied, open x' } })]),
    'EACCES: permission denied, open x',
  );
  assert.is(logCause([json(30, 'listening'), json(40, 'spool full')]), 'spool full', 'a warning without a reason');
  assert.is(logCause([json(30, 'listening'), json(30, 'request')]), undefined, 'info lines name no cause');
});

test('a warning about a failing check wins over its later consequences', () => {
  const consequence = json(40, 'answered 1 read with 503', {
    path: '/api/devices',
    reason: 'the database is not connected',
  });
  assert.is(logCause([...backendLog, consequence]), 'the database is not connected', 'no topic: the last one');
  assert.is(logCause([...backendLog, consequence], ['database']), 'getaddrinfo ENOTFOUND database');
  assert.is(logCause([consequence], ['database']), 'the database is not connected', 'none on topic: the last one');
});

test('a warning from before the smoke bears on its failure only when it is about a failing check', () => {
  const at = (time: number, level: number, msg: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ level, time, pid: 1, name: 'backend', msg, ...extra });
  const started = 1700000005000;
  // Documented as harmless: logged at start-up, before the backend became healthy and the smoke started.
  const startUp = [
    at(started - 4000, 40, 'DEVICE_TOKEN is not set: every device socket upgrade is refused (401)'),
    at(started - 3000, 30, 'backend listening', { port: 3001 }),
  ];
  assert.is(logCause(startUp, [], started), undefined, 'a dead URL: the start-up warning is not its cause');
  assert.is(logCause(startUp), 'DEVICE_TOKEN is not set: every device socket upgrade is refused (401)', 'no since');
  const database = at(started - 2000, 40, 'database unreachable', { database: 'x', reason: 'ENOTFOUND database' });
  assert.is(logCause([...startUp, database], ['database'], started), 'ENOTFOUND database', 'on topic, however old');
  assert.is(logCause([...startUp, database], [], started), undefined, 'off topic and old');
  const during = at(started + 10, 40, 'answered 500', { reason: 'handler threw' });
  assert.is(logCause([...startUp, during], [], started), 'handler threw', 'logged during the smoke');
  assert.is(logCause([...startUp, during], [], started + 11), undefined, 'the bound is the time itself');
  assert.is(logCause([...startUp, during], [], started + 10), 'handler threw');
  const crash = at(started - 3500, 50, 'spool unwritable', { err: { message: 'EACCES' } });
  assert.is(logCause([...startUp, crash], [], started), 'EACCES', 'an error bears whenever it was logged');
  const untimed = JSON.stringify({ level: 40, msg: 'no time field' });
  assert.is(logCause([untimed], [], started), 'no time field', 'a line without a time cannot be ruled out');
});

test('a text log: its last line that names a failure; none, no cause', () => {
  const frontend = [
    '2026-01-01T10:00:00.000Z frontend listening on 3000',
    'Error: connect ECONNREFUSED 10.0.0.3:3001',
    '2026-01-01T10:00:01.000Z GET / 200 4ms',
  ];
  assert.is(logCause(frontend), 'Error: connect ECONNREFUSED 10.0.0.3:3001');
  assert.is(logCause(['all good', 'still good']), undefined);
  assert.is(logCause([]), undefined);
  assert.ok(logCause([`Error: ${'x'.repeat(500)}`])!.length <= 160, 'one phrase, not a page');
});

test('a health check: the last line of its last failing run; passing runs name no cause', () => {
  const exec =
    'OCI runtime exec failed: exec failed: unable to start container process: exec: "curl": ' +
    'executable file not found in $PATH: unknown';
  assert.is(
    healthCause([
      { exitCode: 0, output: '' },
      { exitCode: -1, output: `${exec}\n` },
    ]),
    'exec: "curl": executable file not found in $PATH: unknown',
    "the engine's wrappers left out",
  );
  assert.is(healthCause([{ exitCode: 1, output: 'connect ECONNREFUSED\nstill failing\n' }]), 'still failing');
  assert.is(healthCause([{ exitCode: 1, output: '' }]), 'exit 1, nothing printed');
  assert.is(healthCause([{ exitCode: 0, output: 'ok' }]), undefined);
  assert.is(healthCause([]), undefined);
});

const evidence: Evidence = {
  services: [
    {
      service: 'backend',
      state: 'running',
      health: 'healthy',
      probed: true,
      log: backendLog,
      checks: [{ exitCode: 0, output: '' }],
    },
    {
      service: 'frontend',
      state: 'running',
      health: 'unhealthy',
      probed: false,
      log: ['frontend listening on 3000'],
      checks: [{ exitCode: 7, output: 'curl: (7) Failed to connect to localhost port 3000' }],
    },
  ],
};

test('the cause of a service: its log or its health check as asked, labelled with where it came from', () => {
  assert.is(causeOf(evidence, 'backend'), 'backend log: getaddrinfo ENOTFOUND database');
  assert.is(
    causeOf(evidence, 'frontend', { prefer: 'health' }),
    'frontend health check: curl: (7) Failed to connect to localhost port 3000',
  );
  assert.is(
    causeOf(evidence, 'frontend', { prefer: 'log' }),
    'frontend health check: curl: (7) Failed to connect to localhost port 3000',
    'the health check when the log names nothing',
  );
  assert.is(causeOf(evidence, 'device'), '', 'a service not looked at');
  assert.is(causeOf({ problem: 'engine gone' }, 'backend'), '');
});

test('the report section: each service with its state, last log lines and health-check log', () => {
  const md = evidenceSection(evidence, 'service-health-kit-smoke');
  assert.match(md, /^## Containers \(compose project service-health-kit-smoke\)\n/);
  assert.match(md, '### backend: running, healthy (its probe failed)');
  assert.match(md, '### frontend: running, unhealthy (not running healthy)');
  assert.match(md, 'Last 4 log lines:');
  assert.match(md, '"reason":"getaddrinfo ENOTFOUND database"');
  assert.match(md, '- exit 7: curl: (7) Failed to connect to localhost port 3000');
  const long = evidenceSection(
    { services: [{ ...evidence.services[0]!, log: Array.from({ length: 99 }, (_, i) => `line ${i}`) }] },
    'p',
  );
  assert.match(long, 'Last 30 log lines:');
  assert.match(long, 'line 98');
  assert.not.match(long, 'line 68\n');
  const log = (lines: string[]) => evidenceSection({ services: [{ ...evidence.services[0]!, log: lines }] }, 'p');
  assert.match(log([]), /### backend: .*\n\nLog: nothing printed yet\.\n\nHealth-check log:/);
  assert.not.match(log([]), '```', 'no empty block');
  assert.match(log(['only line']), 'Last log line:\n\n```\nonly line\n```');
});

test('logs that could not be read are said so, in place of the logs', () => {
  const md = evidenceSection(
    { problem: 'the containers could not be listed (Cannot connect to the Docker daemon)' },
    'p',
  );
  assert.match(
    md,
    'Container logs could not be read: the containers could not be listed (Cannot connect to the Docker daemon).',
  );
  const one = evidenceSection(
    { services: [{ ...evidence.services[0]!, log: undefined, problem: 'its log could not be read (x)' }] },
    'p',
  );
  assert.match(one, '\nIts log could not be read (x).\n');
});

test.run();
