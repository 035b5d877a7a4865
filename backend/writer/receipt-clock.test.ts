// The receipt clock: the time now, never the same twice and never back, even when the system clock steps back.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createReceiptClock } from './receipt-clock.ts';

test('follows the clock; frames in one millisecond get one each; a clock stepping back does not step it back', () => {
  const times = [1000, 1000, 1000, 1005, 990, 2000];
  const clock = createReceiptClock(() => times.shift()!);
  assert.equal(
    Array.from({ length: 6 }, () => clock().getTime()),
    [1000, 1001, 1002, 1005, 1006, 2000],
  );
});

test.run();
