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
  assert.equal(readiness.snapshot(), {
    status: 'not_ready',
    checks: { database: 'disconnected', serial: 'disconnected' },
  });
  setDatabase('connected');
  assert.is(readiness.snapshot().status, 'not_ready');
  setSerial('emulator');
  assert.equal(readiness.snapshot(), { status: 'ready', checks: { database: 'connected', serial: 'emulator' } });
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
