// The silence rule: a reply of any kind resets it, the loop's own lag is not counted, a late reply is not a failure.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MongoNetworkError, MongoNetworkTimeoutError } from 'mongodb';
import { heardFrom, isLateReply, isSilent, silentMs, startSilence, ticked, type Silence } from './database-silence.ts';

const TICK = 100;
/** The watchdog running on time every TICK from `from` through `to`. */
const onTime = (silence: Silence, from: number, to: number): Silence => {
  let at = silence;
  for (let now = from; now <= to; now += TICK) at = ticked(at, now, TICK);
  return at;
};

test('with the watchdog on time, silence is the time since the last reply', () => {
  const silence = onTime(startSilence(0), 100, 2000);
  assert.is(silentMs(silence, 2000), 2000);
  assert.ok(isSilent(silence, 2000, 1500));
  assert.not.ok(isSilent(silence, 1500, 1500));
});

test('any reply resets it: a command answered between late heartbeats keeps the database alive', () => {
  let silence = onTime(startSilence(0), 100, 1200);
  silence = heardFrom(silence, 1250); // an insert succeeded
  silence = onTime(silence, 1300, 2700);
  assert.is(silentMs(silence, 2700), 1450);
  assert.not.ok(isSilent(silence, 2700, 1500));
});

test('a loop blocked for 3 s is not counted against the database', () => {
  let silence = onTime(startSilence(0), 100, 500);
  silence = ticked(silence, 3600, TICK); // due at 600, ran at 3600: 3000 ms blocked
  assert.is(silence.blocked, 3000);
  assert.is(silentMs(silence, 3600), 600);
  assert.not.ok(isSilent(silence, 3600, 1500));
});

test('after a block, silence counts again from where it stopped', () => {
  let silence = ticked(onTime(startSilence(0), 100, 500), 3600, TICK);
  silence = onTime(silence, 3700, 4500);
  assert.is(silentMs(silence, 4500), 1500);
  assert.ok(isSilent(onTime(silence, 4600, 4600), 4600, 1500));
});

test('lag before the last reply is not discounted from the silence after it', () => {
  let silence = onTime(startSilence(0), 100, 500);
  silence = heardFrom(silence, 2000); // read during the block's tail, before the late watchdog ran
  silence = ticked(silence, 2100, TICK); // due at 600: only 2000..2100 is after the reply
  assert.is(silence.blocked, 100);
  assert.is(silentMs(silence, 2100), 0);
});

test('a reply resets the lag with the silence', () => {
  let silence = ticked(onTime(startSilence(0), 100, 500), 3600, TICK);
  silence = heardFrom(silence, 3650);
  assert.is(silence.blocked, 0);
  assert.is(silentMs(onTime(silence, 3700, 5200), 5200), 1550);
});

test('a driver timeout is a late reply; a refused or reset connection is a failure', () => {
  assert.ok(isLateReply(new MongoNetworkTimeoutError('connection 3 to 127.0.0.1:1 timed out')));
  assert.not.ok(isLateReply(new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:1')));
  assert.not.ok(isLateReply(new Error('timed out')));
  assert.not.ok(isLateReply(undefined));
});

test.run();
