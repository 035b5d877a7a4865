// The pacer without a socket: the hello carries the backlog, losses go before readings, frames wait for tokens, and
// nothing passes the in-flight bound.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeReading } from '../lib/device-protocol.ts';
import { createOutbox } from './outbox.ts';
import { createLossLedger } from './loss-ledger.ts';
import { createFramePacer, type Paced } from './frame-pacer.ts';

/** A spool of `count` readings of session `s` and a pacer over it on a fake clock. */
function setup({ count = 10, inFlightMax = 100, burst = 5, perSecond = 10 } = {}) {
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
  const pacer = createFramePacer({ spool, limits, pace: { perSecond, burst }, now: () => t });
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

test.run();
