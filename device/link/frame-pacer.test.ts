// The pacer without a socket: the hello carries the backlog, losses go before readings, frames wait for tokens, and
// nothing passes the in-flight bound.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DEVICE_MESSAGE_RATE,
  DEVICE_PING_INTERVAL_MS,
  DEVICE_UNACKED_IN_FLIGHT_UNSAID,
  encodeReading,
  paceUnder,
  type Pace,
} from '../../lib/device-protocol.ts';
import { createTokenBucket } from '../../lib/token-bucket.ts';
import { createOutbox } from '../spool/outbox.ts';
import { createLossLedger } from '../spool/loss-ledger.ts';
import { createFramePacer, paceForBackend, termsForBackend, type Paced } from './frame-pacer.ts';

/** A spool of `count` readings of session `s` and a pacer over it on a fake clock. */
function setup({ count = 10, inFlightMax = 100, burst = 5, perSecond = 10, shippedPace = false } = {}) {
  const json = Array.from({ length: count }, (_, i) => encodeReading({ seq: i + 1, timestamp: 't', value: 'v' }));
  const bytes = Buffer.from(json.join(''));
  const outbox = createOutbox({ read: (_block, start, end) => bytes.subarray(start, end) });
  let offset = 0;
  json.forEach((text, i) => {
    outbox.add(1, 's', i + 1, offset, text.length);
    offset += text.length;
  });
  const losses = createLossLedger();
  const spool = {
    session: 's',
    outbox,
    losses,
    get size() {
      return outbox.size;
    },
  };
  let t = 0;
  const limits = { deviceId: 'dev', maxBytes: 160, inFlightMax };
  const pace = shippedPace ? undefined : { perSecond, burst };
  const pacer = createFramePacer({ spool, limits, ...(pace ? { pace } : {}), now: () => t });
  return { pacer, outbox, losses, advance: (ms: number) => (t += ms) };
}

const kind = (paced: Paced | undefined) =>
  paced === undefined ? 'none' : 'waitMs' in paced ? `wait ${Math.round(paced.waitMs)}` : JSON.parse(paced.text).type;

test('the hello names the backlog; losses go before readings', () => {
  const { pacer, losses } = setup();
  losses.add('old', 'evicted', [[1, 40]]);
  assert.equal(JSON.parse(pacer.open()), { type: 'hello', deviceId: 'dev', session: 's', backlog: 10 });
  const lost = pacer.next() as { text: string };
  assert.equal(JSON.parse(lost.text), {
    type: 'lost',
    deviceId: 'dev',
    session: 'old',
    reason: 'evicted',
    ranges: [[1, 40]],
  });
  assert.is(kind(pacer.next()), 'readings');
});

test('one message per token: past the burst it says how long to wait, and a token later sends again', () => {
  const { pacer, advance } = setup({ count: 1000, burst: 3, perSecond: 10 });
  pacer.open(); // one token
  assert.equal([kind(pacer.next()), kind(pacer.next()), kind(pacer.next())], ['readings', 'readings', 'wait 100']);
  advance(100);
  assert.is(kind(pacer.next()), 'readings');
});

test('never more than the in-flight bound unacknowledged; an ack frees room', () => {
  const { pacer, outbox } = setup({ count: 10, inFlightMax: 4, burst: 100 });
  pacer.open();
  const sent: number[] = [];
  for (let paced = pacer.next(); paced && 'text' in paced; paced = pacer.next()) {
    sent.push(...JSON.parse(paced.text).readings.map((r: { seq: number }) => r.seq));
  }
  assert.equal(sent, [1, 2, 3, 4]);
  assert.is(pacer.next(), undefined, 'the bound is reached');
  outbox.forget('s', 2);
  assert.equal(
    JSON.parse((pacer.next() as { text: string }).text).readings.map((r: { seq: number }) => r.seq),
    [5, 6],
  );
});

test('after an ack a hello reports the new backlog once, when a token is spare', () => {
  const { pacer, outbox } = setup({ count: 3, burst: 10 });
  pacer.open();
  while (pacer.next()) {}
  assert.is(pacer.backlogHello(), undefined, 'the last frame said it');
  outbox.forget('s', 3);
  assert.equal(JSON.parse(pacer.backlogHello()!), { type: 'hello', deviceId: 'dev', session: 's', backlog: 0 });
  assert.is(pacer.backlogHello(), undefined, 'said once');
});

const RUN_MS = 20_000;

/** Send times (ms) of every message a greedy link sends over RUN_MS: the pacer's, and a ping every interval. */
function sendTimes(pace?: Pace): number[] {
  const { pacer, advance } = setup({ count: 60_000, inFlightMax: 1e9, shippedPace: !pace, ...pace });
  const times = [0]; // the hello
  pacer.open();
  for (let t = 0; t <= RUN_MS; t++, advance(1)) {
    for (let paced = pacer.next(); paced && 'text' in paced; paced = pacer.next()) times.push(t);
    if (t % DEVICE_PING_INTERVAL_MS === 0) times.push(t);
  }
  return times;
}

/** Messages the backend's per-socket limit refuses when each is held back until the next multiple of jitter + phase. */
function refusedWhenBunched(times: number[], jitterMs: number, phase: number): number {
  let now = 0;
  const bucket = createTokenBucket({ ...DEVICE_MESSAGE_RATE, now: () => now });
  let refused = 0;
  for (const sent of times) {
    now = Math.ceil((sent - phase) / jitterMs) * jitterMs + phase;
    if (!bucket.take()) refused++;
  }
  return refused;
}

const PHASES = Array.from({ length: 1000 }, (_, i) => i);

test('the shipped pace: frames and pings bunched by a second of jitter stay under the backend limit', () => {
  const times = sendTimes();
  assert.ok(times.length > (RUN_MS / 1000) * 45, `only ${times.length} messages: the sender was not greedy`);
  assert.equal(
    PHASES.map((phase) => refusedWhenBunched(times, 1000, phase)),
    PHASES.map(() => 0),
  );
});

test('the pace is as fast as it may be: one more a second, or two more in the burst, trips the limit', () => {
  const shipped = paceUnder(DEVICE_MESSAGE_RATE);
  for (const faster of [
    { ...shipped, perSecond: shipped.perSecond + 1 },
    { ...shipped, burst: shipped.burst + 2 },
  ]) {
    const times = sendTimes(faster);
    const refused = Math.max(...PHASES.map((phase) => refusedWhenBunched(times, 1000, phase)));
    assert.ok(refused > 0, `${JSON.stringify(faster)} never tripped the limit`);
  }
});

test("a socket's pace: under its backend's rate, else under older backends', else the slowest", () => {
  assert.equal(paceForBackend(undefined), { perSecond: 49, burst: 150 });
  assert.equal(paceForBackend('garbled'), { perSecond: 49, burst: 150 });
  assert.equal(paceForBackend('100;burst=400'), { perSecond: 99, burst: 300 });
  assert.equal(paceForBackend('100;burst=400', 250), paceUnder(DEVICE_MESSAGE_RATE, { pingIntervalMs: 250 }));
  assert.equal(paceForBackend('25;burst=40'), { perSecond: 24, burst: 15 });
  assert.equal(paceForBackend('1;burst=1'), { perSecond: 1, burst: 1 }, 'nothing fits: a frame a second');
});

test("a socket's in-flight bound: what its backend says, else older backends' 2000", () => {
  assert.equal(termsForBackend({ inFlight: '4000' }).inFlightMax, 4000);
  assert.equal(termsForBackend({ inFlight: ' 250 ' }).inFlightMax, 250);
  for (const inFlight of [undefined, '', '0', '-5', '1.5', '4000;x', '99999999'])
    assert.equal(termsForBackend({ inFlight }).inFlightMax, DEVICE_UNACKED_IN_FLIGHT_UNSAID, String(inFlight));
  assert.equal(termsForBackend({ rate: '25;burst=40' }).pace, paceForBackend('25;burst=40'));
});

test('a new socket takes the pace and in-flight bound it is given from then on', () => {
  const { pacer, advance } = setup({ count: 1000, burst: 100, perSecond: 100 });
  pacer.open({ pace: { perSecond: 10, burst: 2 }, inFlightMax: 100 }); // the hello takes one of the two
  assert.equal([kind(pacer.next()), kind(pacer.next())], ['readings', 'wait 100']);
  advance(100);
  assert.is(kind(pacer.next()), 'readings');
  // Each frame of this setup holds a few readings: the bound stops sending at 3 readings on the next socket.
  pacer.open({ pace: { perSecond: 1000, burst: 1000 }, inFlightMax: 3 });
  let sent = 0;
  for (let paced = pacer.next(); paced && 'text' in paced; paced = pacer.next())
    sent += JSON.parse(paced.text).readings.length;
  assert.is(sent, 3);
});

test.run();
