// Unit tests for the fault suite's judge: it must catch late flips, flapping and socket errors.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTimeline, judge, type Change } from './state-timeline.ts';
import { sleep } from '../../support/deadline.ts';
import type { Sample } from './hammer.ts';

const change = (at: number, up: boolean, what: string, boundMs: number, earlyMs = 0): Change => ({
  at,
  up,
  what,
  boundMs,
  earlyMs,
});
const answer = (sent: number, status: number, received = sent + 2): Sample => ({
  path: '/api/ready',
  sent,
  received,
  status,
});
const changes = [
  change(0, true, 'start', 0),
  change(1000, false, 'kill 1', 250),
  change(2000, true, 'restart 1', 2000, 100),
];

test('answers matching the state, or stale within the bound, pass and report the lag', () => {
  const verdict = judge(
    [answer(500, 200), answer(1100, 200), answer(1200, 503), answer(2050, 503), answer(2100, 200)],
    changes,
    1,
  );
  assert.equal(verdict.violations, []);
  assert.equal(verdict.lags, [
    { what: 'kill 1', ms: 100, boundMs: 250 },
    { what: 'restart 1', ms: 50, boundMs: 2000 },
  ]);
});

test('a stale answer to a request sent after the bound is a violation naming the change and the lag', () => {
  const verdict = judge([answer(1400, 200)], changes, 1.2);
  assert.equal(verdict.violations, ['"kill 1" (#1): still 200 400 ms after it (bound 250 ms)']);
});

test('flapping while the dependency is steady is a violation', () => {
  assert.is(judge([answer(600, 503)], changes, 1).violations.length, 1);
});

test('socket errors and unexpected statuses are violations', () => {
  const failed: Sample = { path: '/api/ready', sent: 700, received: 701, status: 0, error: 'ECONNRESET' };
  const verdict = judge([failed, answer(800, 500)], changes, 1);
  assert.equal(verdict.violations.length, 2);
  assert.match(verdict.violations[0]!, 'ECONNRESET');
  assert.match(verdict.violations[1]!, 'status 500');
});

test('an answer may show a change made while it was in flight, or just before a restart was seen listening', () => {
  assert.equal(judge([answer(990, 503, 1005), answer(1950, 200, 1960)], changes, 1).violations, []);
  assert.is(judge([answer(1800, 200, 1810)], changes, 1).violations.length, 1);
});

test(
  'a change an awaited step brings about may show while the step runs, ' + 'yet a flip before the step began is a flap',
  async () => {
    const timeline = createTimeline(true);
    await sleep(20);
    let seen: Sample | undefined;
    // The device saw the pty go before `pty.stop()` returned: the "\"start\" (#0): still 503" failure.
    await timeline.during(false, 'pty removed 1', 1000, async () => {
      await sleep(5);
      seen = answer(performance.now(), 503, performance.now() + 1);
      await sleep(20);
    });
    assert.equal(judge([seen!], timeline.changes, 1.6).violations, []);
    const start = timeline.changes[0]!.at;
    assert.equal(judge([answer(start + 10, 503, start + 11)], timeline.changes, 1.6).violations, [
      '"start" (#0): still 503 10 ms after it (bound 0 ms)',
    ]);
  },
);

test.run();
