// The device path is down without a thread, behind once a frame waited past the bound, ok again once handled.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { watchDevicePath, type DevicePathState } from './device-path.ts';

test('down without a thread; behind past the bound; ok once the frame is handled; down when the thread stops', () => {
  const states: [DevicePathState, string | undefined][] = [];
  const clock = { now: 5000, oldest: undefined as number | undefined };
  const path = watchDevicePath({
    oldestAt: () => clock.oldest,
    onState: (state, reason) => void states.push([state, reason]),
    behindMs: 2000,
    now: () => clock.now,
  });
  try {
    path.judge();
    assert.equal(states, [], 'no thread yet: nothing judged');
    path.thread(true);
    clock.now = 10_000;
    clock.oldest = 9000;
    path.judge();
    clock.oldest = 7500;
    path.judge();
    path.judge();
    clock.oldest = undefined;
    path.judge();
    path.thread(false, 'the device thread stopped (exit code 1)');
    assert.equal(states, [
      ['ok', undefined],
      ['behind', 'the oldest frame read has waited 2500 ms for the device thread (bound 2000 ms)'],
      ['ok', undefined],
      ['down', 'the device thread stopped (exit code 1)'],
    ]);
  } finally {
    path.stop();
  }
});

test('frames held before a thread ran are judged by their wait since it runs', () => {
  const states: DevicePathState[] = [];
  const clock = { now: 10_000, oldest: 1000 as number | undefined };
  const path = watchDevicePath({
    oldestAt: () => clock.oldest,
    onState: (s) => void states.push(s),
    now: () => clock.now,
  });
  try {
    path.thread(true);
    assert.equal(states, ['ok'], 'read 9 s ago, before any thread ran: not behind yet');
    clock.now = 12_001;
    path.judge();
    assert.equal(states, ['ok', 'behind'], 'still unhandled 2 s after the thread started: behind');
  } finally {
    path.stop();
  }
});

test('behind while the oldest reading waits past the bound for its write; ok once it is written', () => {
  const states: [DevicePathState, string | undefined][] = [];
  const clock = { now: 10_000, unwritten: undefined as number | undefined };
  const path = watchDevicePath({
    oldestAt: () => undefined,
    unwrittenAt: () => clock.unwritten,
    onState: (state, reason) => void states.push([state, reason]),
    behindMs: 2000,
    now: () => clock.now,
  });
  try {
    path.thread(true);
    clock.unwritten = 8500;
    path.judge();
    clock.unwritten = 7000;
    path.judge();
    clock.unwritten = undefined;
    path.judge();
    assert.equal(states, [
      ['ok', undefined],
      ['behind', 'the oldest reading received has waited 3000 ms for its write (bound 2000 ms)'],
      ['ok', undefined],
    ]);
  } finally {
    path.stop();
  }
});

test.run();
