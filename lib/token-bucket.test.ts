import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTokenBucket } from './token-bucket.ts';

test('a burst, then the sustained rate; wait() says how long until the next token', () => {
  let now = 0;
  const bucket = createTokenBucket({ perSecond: 50, burst: 200, now: () => now });
  let taken = 0;
  while (bucket.take()) taken++;
  assert.is(taken, 200);
  assert.is(bucket.wait(), 20); // one token per 20 ms at 50/s
  now = 19;
  assert.is(bucket.take(), false);
  now = 20;
  assert.is(bucket.take(), true);
  now = 1020; // a second later: 50 more, never more than the burst
  taken = 0;
  while (bucket.take()) taken++;
  assert.is(taken, 50);
  now = 1_000_000;
  taken = 0;
  while (bucket.take()) taken++;
  assert.is(taken, 200);
  assert.is(createTokenBucket({ perSecond: 1, burst: 1 }).wait(), 0);
});

test.run();
