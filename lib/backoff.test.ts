import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createBackoff } from './backoff.ts';

test('doubles from the initial delay and stops at the cap', () => {
  const backoff = createBackoff({ initialMs: 100, maxMs: 2000, random: () => 1 });
  const delays = Array.from({ length: 8 }, () => backoff.next());
  assert.equal(delays, [100, 200, 400, 800, 1600, 2000, 2000, 2000]);
  assert.is(backoff.attempts, 8);
});

test('jitter keeps each delay between half and all of its base', () => {
  const low = createBackoff({ initialMs: 100, maxMs: 2000, random: () => 0 });
  assert.equal([low.next(), low.next(), low.next()], [50, 100, 200]);
  const real = createBackoff({ initialMs: 100, maxMs: 2000 });
  for (let i = 0; i < 200; i++) {
    const delay = real.next();
    assert.ok(delay >= 50 && delay <= 2000, `delay ${delay} out of range`);
  }
});

test('reset starts again from the initial delay', () => {
  const backoff = createBackoff({ initialMs: 100, maxMs: 2000, random: () => 1 });
  backoff.next();
  backoff.next();
  backoff.reset();
  assert.is(backoff.attempts, 0);
  assert.is(backoff.next(), 100);
});

test.run();
