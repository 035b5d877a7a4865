// A thread's answers to probes on a fake clock: one probe at a time, silent once one waits past the bound, answered
// again when a reply comes; no probe while no thread runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { watchThreadAnswers } from './thread-answers.ts';

function setup(running = true) {
  const clock = { now: 0, probes: 0, running };
  const events: string[] = [];
  const answers = watchThreadAnswers({
    probe: () => (clock.running ? (clock.probes += 1) > 0 : false),
    onSilent: (ms) => void events.push(`silent ${ms}`),
    onAnswered: () => void events.push('answered'),
    everyMs: 60_000,
    silentMs: 2000,
    now: () => clock.now,
  });
  // Each at() is one of the timer's turns, on the fake clock; the real timer (a minute) never fires in a test.
  const at = (ms: number) => ((clock.now = ms), answers.tick());
  return { clock, events, answers, at };
}

test('a thread that answers is never silent; one probe waits at a time', () => {
  const { clock, events, answers, at } = setup();
  try {
    at(500);
    at(1000);
    assert.is(clock.probes, 1, 'no second probe while the first waits');
    answers.answered();
    at(1500);
    assert.is(clock.probes, 2);
    answers.answered();
    assert.equal(events, []);
  } finally {
    answers.stop();
  }
});

test('a probe unanswered past the bound: silent once, answered when a reply comes', () => {
  const { events, answers, at } = setup();
  try {
    at(500);
    at(2500);
    assert.equal(events, [], 'at the bound: not yet');
    at(3000);
    at(3500);
    assert.equal(events, ['silent 2500'], 'said once');
    answers.answered();
    answers.answered();
    assert.equal(events, ['silent 2500', 'answered']);
  } finally {
    answers.stop();
  }
});

test('no thread to probe: nothing awaited; a new thread starts clean', () => {
  const { clock, events, answers, at } = setup(false);
  try {
    at(500);
    at(5000);
    assert.equal([clock.probes, events], [0, []]);
    clock.running = true;
    at(5500);
    answers.reset();
    at(9000);
    assert.equal(events, [], 'the probe sent before the reset is not awaited');
    assert.is(clock.probes, 2);
  } finally {
    answers.stop();
  }
});

test.run();
