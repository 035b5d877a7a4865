// When a burst of socket events is over, on a fake clock: one collection once the path has been quiet for
// `quietMs`, at most one per burst; none while events keep coming, none after too few events.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { watchBursts } from './burst-collect.ts';

function setup() {
  const clock = { now: 0, collections: 0 };
  const bursts = watchBursts({
    collect: () => void (clock.collections += 1),
    burstEvents: 100,
    quietMs: 3000,
    everyMs: 60_000,
    now: () => clock.now,
  });
  // Each at() is one of the timer's turns, on the fake clock; the real timer (a minute) never fires in a test.
  const at = (ms: number) => ((clock.now = ms), bursts.tick());
  const events = (n: number) => Array.from({ length: n }, () => bursts.event());
  return { clock, bursts, at, events };
}

test('a burst is collected once, once quiet for quietMs, and not again while quiet', () => {
  const { clock, bursts, at, events } = setup();
  try {
    events(150);
    at(1000);
    at(3500);
    assert.is(clock.collections, 0, 'quiet for 2.5 s: not yet');
    at(4000);
    assert.is(clock.collections, 1, 'quiet for 3 s: collected');
    at(10_000);
    at(60_000);
    assert.is(clock.collections, 1, 'once per burst');
    events(150);
    at(61_000);
    at(64_000);
    assert.is(clock.collections, 2, 'the next burst: once more');
  } finally {
    bursts.stop();
  }
});

test('a steady stream is never collected; its end is', () => {
  const { clock, bursts, at, events } = setup();
  try {
    for (let ms = 1000; ms <= 20_000; ms += 1000) {
      events(50);
      at(ms);
    }
    assert.is(clock.collections, 0, 'events every second: never quiet');
    at(23_000);
    assert.is(clock.collections, 1, 'quiet once it stops');
  } finally {
    bursts.stop();
  }
});

test('a quiet path, or a few events, is never collected', () => {
  const { clock, bursts, at, events } = setup();
  try {
    at(10_000);
    events(99);
    at(11_000);
    at(60_000);
    assert.is(clock.collections, 0, 'fewer events than a burst');
    events(1);
    at(61_000);
    at(64_000);
    assert.is(clock.collections, 1, 'counted together since the last collection, they make one');
  } finally {
    bursts.stop();
  }
});

test.run();
