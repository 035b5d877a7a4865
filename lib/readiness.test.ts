import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createReadiness } from './readiness.ts';

test('a service with no checks is ready', () => {
  assert.is(createReadiness().snapshot().status, 'ready');
});

test('reports not_ready until every check is in a ready state', () => {
  const readiness = createReadiness();
  const setDatabase = readiness.define('database', { initial: 'disconnected', ready: ['connected'] });
  const setSerial = readiness.define('serial', { initial: 'disconnected', ready: ['connected', 'emulator'] });
  assert.is(readiness.snapshot().status, 'not_ready');
  assert.equal(readiness.snapshot().checks, { database: 'disconnected', serial: 'disconnected' });
  setDatabase('connected');
  assert.is(readiness.snapshot().status, 'not_ready');
  setSerial('emulator');
  assert.is(readiness.snapshot().status, 'ready');
  assert.equal(readiness.snapshot().checks, { database: 'connected', serial: 'emulator' });
  setDatabase('disconnected');
  assert.equal(readiness.snapshot().checks, { database: 'disconnected', serial: 'emulator' });
  assert.is(readiness.snapshot().status, 'not_ready');
});

test('snapshot is the same object between changes (reads do no work)', () => {
  const readiness = createReadiness();
  readiness.define('backend', { initial: 'connected', ready: ['connected'] });
  assert.ok(readiness.snapshot() === readiness.snapshot());
  assert.ok(Object.isFrozen(readiness.snapshot().checks));
});

test('listeners hear each change once, with the previous state and the overall verdict', () => {
  const readiness = createReadiness();
  const set = readiness.define('database', { initial: 'disconnected', ready: ['connected'] });
  const heard: unknown[] = [];
  const off = readiness.onChange((change) => heard.push(change));
  set('connected');
  set('connected'); // no change, no event
  set('disconnected');
  off();
  set('connected');
  assert.equal(heard, [
    { name: 'database', state: 'connected', previous: 'disconnected', ready: true, allReady: true },
    { name: 'database', state: 'disconnected', previous: 'connected', ready: false, allReady: false },
  ]);
});

test("details: the service's own judgement of each check, since when and why, from its definition", () => {
  let clock = Date.parse('2026-11-25T10:00:00.000Z');
  const readiness = createReadiness({ now: () => new Date(clock) });
  const setSpool = readiness.define('spool', { initial: 'writable', ready: ['writable'] });
  const setDatabase = readiness.define('database', { initial: 'connecting', ready: ['connected'] });
  assert.equal(readiness.snapshot().details, {
    spool: { ok: true, since: '2026-11-25T10:00:00.000Z' },
    database: { ok: false, since: '2026-11-25T10:00:00.000Z' },
  });
  clock += 5000;
  setDatabase('connected');
  clock += 5000;
  setSpool('unwritable', 'EACCES: permission denied,\n  open spool/0001.seg');
  assert.equal(readiness.snapshot().details, {
    spool: { ok: false, since: '2026-11-25T10:00:10.000Z', reason: 'EACCES: permission denied, open spool/0001.seg' },
    database: { ok: true, since: '2026-11-25T10:00:05.000Z' },
  });
  clock += 5000;
  setSpool('unwritable', 'another reason'); // the same state: no change, the first reason and time stay
  assert.is(readiness.snapshot().details.spool!.since, '2026-11-25T10:00:10.000Z');
  setSpool('writable');
  assert.equal(readiness.snapshot().details.spool, { ok: true, since: '2026-11-25T10:00:15.000Z' });
  assert.ok(Object.isFrozen(readiness.snapshot().details));
  assert.ok(Object.isFrozen(readiness.snapshot().details.spool));
});

test('a long reason is cut to 200 characters, on one line', () => {
  const readiness = createReadiness();
  const set = readiness.define('database', { initial: 'connected', ready: ['connected'] });
  set('disconnected', `${'x'.repeat(150)}\n${'y'.repeat(150)}`);
  const { reason } = readiness.snapshot().details.database!;
  assert.is(reason!.length, 200);
  assert.ok(reason!.endsWith('…'));
  assert.not.match(reason!, /\n/);
});

test('a check that does not decide is judged on its own but never turns the service not ready', () => {
  const readiness = createReadiness();
  readiness.define('database', { initial: 'connected', ready: ['connected'] });
  const setDevices = readiness.define('devices', { initial: 'down', ready: ['ok'], decides: false });
  assert.is(readiness.snapshot().status, 'ready');
  assert.is(readiness.snapshot().details.devices!.ok, false);
  setDevices('ok');
  setDevices('behind', 'a frame waited 2500 ms');
  assert.is(readiness.snapshot().status, 'ready');
  assert.equal(readiness.snapshot().checks, { database: 'connected', devices: 'behind' });
  assert.is(readiness.isReady('devices'), false);
});

test('shutting down overrides every check', () => {
  const readiness = createReadiness();
  readiness.define('database', { initial: 'connected', ready: ['connected'] });
  readiness.shutDown();
  assert.is(readiness.snapshot().status, 'shutting_down');
});

test('undefined and duplicate checks are programming errors', () => {
  const readiness = createReadiness();
  readiness.define('database', { initial: 'connected', ready: ['connected'] });
  assert.throws(() => readiness.set('cache', 'up'), /"cache" is not defined/);
  assert.throws(() => readiness.define('database', { initial: 'x', ready: [] }), /defined twice/);
});

test.run();
