// The once-a-millisecond ISO clock: the same string as toISOString() for every instant, formatted once per instant.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createIsoClock, isoNow } from './iso-now.ts';

test('gives what toISOString gives, for each millisecond the clock reads', () => {
  const instants = [0, 1, 999, 1_000, 1_795_785_920_680, 1_795_785_920_681, 253_402_300_799_999, -1];
  let at = 0;
  const clock = createIsoClock(() => instants[at]!);
  for (at = 0; at < instants.length; at++) assert.is(clock(), new Date(instants[at]!).toISOString());
});

test('a new millisecond gives a new string; the same one is not formatted again', () => {
  let ms = 1_795_785_920_680;
  const clock = createIsoClock(() => ms);
  const first = clock();
  assert.is(clock(), first);
  ms += 1;
  assert.is(clock(), '2026-11-27T13:25:20.681Z');
  ms -= 1;
  assert.is(clock(), first, 'a clock that steps back is formatted again, not left ahead');
});

test('the shared clock reads the real time', () => {
  const before = Date.now();
  const shown = Date.parse(isoNow());
  assert.ok(shown >= before && shown <= Date.now(), `${isoNow()} is now`);
});

test.run();
