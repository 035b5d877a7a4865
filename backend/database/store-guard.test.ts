// The store guard's note that the server answered, which the device thread passes on as a sign of life.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createStoreGuard } from './store-guard.ts';
import { DatabaseUnavailableError } from './database-unavailable-error.ts';

function counted() {
  let answers = 0;
  const guard = createStoreGuard({
    isConnected: () => true,
    uri: 'mongodb://db',
    queryTimeoutMs: 60_000,
    writeDeadlineMs: 60_000,
    onAnswer: () => void (answers += 1),
  });
  return { guard, answers: () => answers };
}

test('a query or a write answered: noted once each, with its result passed on', async () => {
  const { guard, answers } = counted();
  assert.is(await guard.query(async () => 'found'), 'found');
  assert.is(await guard.write('write', async () => 'stored'), 'stored');
  assert.is(answers(), 2);
});

test('a request that failed is no answer: not noted, and it fails as DatabaseUnavailableError', async () => {
  const { guard, answers } = counted();
  const failed = await guard.write('write', () => Promise.reject(new Error('connection reset'))).catch((e) => e);
  assert.instance(failed, DatabaseUnavailableError);
  assert.is(answers(), 0);
});

test.run();
