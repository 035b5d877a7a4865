import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSignInLimit } from './sign-in-limit.ts';

const clock = () => {
  const c = { t: 0, now: () => c.t };
  return c;
};

test('one address: its burst, then one a refill, with the wait in whole seconds', () => {
  const c = clock();
  const limit = createSignInLimit({ perAddress: { burst: 3, perSecond: 0.5 }, now: c.now });
  for (let i = 0; i < 3; i++) {
    assert.is(limit.retryAfterS('10.0.0.1'), 0, `try ${i + 1}`);
    limit.failed('10.0.0.1');
  }
  assert.is(limit.retryAfterS('10.0.0.1'), 2);
  c.t = 1500;
  assert.is(limit.retryAfterS('10.0.0.1'), 1);
  c.t = 2000;
  assert.is(limit.retryAfterS('10.0.0.1'), 0);
  assert.is(limit.retryAfterS('10.0.0.2'), 0, 'another address is not slowed');
});

test('overall: once spent, every failing address waits; a clean one still gets its try', () => {
  const c = clock();
  const limit = createSignInLimit({
    perAddress: { burst: 5, perSecond: 1 },
    overall: { burst: 4, perSecond: 0.25 },
    now: c.now,
  });
  for (const address of ['a', 'b', 'c', 'd']) limit.failed(address);
  assert.is(limit.retryAfterS('a'), 4);
  assert.is(limit.retryAfterS('d'), 4);
  assert.is(limit.retryAfterS('fresh'), 0);
  limit.failed('fresh');
  assert.is(limit.retryAfterS('fresh'), 4, 'one try, then it waits like the others');
});

test('the defaults: ten per address, then one a minute; a hundred overall, then one a second', () => {
  const c = clock();
  const limit = createSignInLimit({ now: c.now });
  for (let i = 0; i < 10; i++) limit.failed('a');
  assert.is(limit.retryAfterS('a'), 60);
  for (let i = 0; i < 90; i++) limit.failed(`b${i}`);
  assert.is(limit.retryAfterS('b0'), 1, 'the overall hundred spent');
  c.t = 1000;
  assert.is(limit.retryAfterS('b0'), 0);
  assert.is(limit.retryAfterS('a'), 59);
});

test('memory is bounded: past the bound the oldest address is forgotten', () => {
  const limit = createSignInLimit({ perAddress: { burst: 1, perSecond: 0.001 }, maxAddresses: 2, now: () => 0 });
  for (const address of ['a', 'b', 'c']) limit.failed(address);
  assert.is(limit.retryAfterS('a'), 0);
  assert.ok(limit.retryAfterS('b') > 0);
  assert.ok(limit.retryAfterS('c') > 0);
});

test.run();
