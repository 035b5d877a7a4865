// The ledger of declared losses: joined ranges, declared once per socket, forgotten as acks pass them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LOST_RANGES_MAX } from '../../lib/device-protocol.ts';
import { createLossLedger } from './loss-ledger.ts';

test('losses join per session and reason, go once per socket, and again after a rewind or an addition', () => {
  const ledger = createLossLedger();
  ledger.add('s1', 'evicted', [[1, 10]]);
  ledger.add('s1', 'unwritten', [[12, 12]]);
  ledger.add('s1', 'unwritten', [[13, 13]]);
  ledger.add('s2', 'evicted', [[1, 2]]);
  assert.is(ledger.size, 14);
  assert.equal(ledger.unsent(), [
    { session: 's1', reason: 'evicted', ranges: [[1, 10]] },
    { session: 's1', reason: 'unwritten', ranges: [[12, 13]] },
    { session: 's2', reason: 'evicted', ranges: [[1, 2]] },
  ]);
  assert.equal(ledger.unsent(), [], 'sent on this socket');
  ledger.add('s1', 'unwritten', [[20, 20]]);
  assert.equal(ledger.unsent(), [
    {
      session: 's1',
      reason: 'unwritten',
      ranges: [
        [12, 13],
        [20, 20],
      ],
    },
  ]);
  ledger.rewind();
  assert.is(ledger.unsent().length, 3, 'a new socket hears all of them');
});

test('an ack forgets what lies at or below it, trimming a range it cuts', () => {
  const ledger = createLossLedger();
  ledger.add('s1', 'evicted', [[1, 10]]);
  ledger.add('s1', 'unwritten', [[15, 15]]);
  ledger.forget('s1', 5);
  ledger.forget('other', 100);
  ledger.rewind();
  assert.equal(ledger.unsent(), [
    { session: 's1', reason: 'evicted', ranges: [[6, 10]] },
    { session: 's1', reason: 'unwritten', ranges: [[15, 15]] },
  ]);
  ledger.forget('s1', 15);
  assert.is(ledger.size, 0);
  ledger.rewind();
  assert.equal(ledger.unsent(), []);
});

test('more ranges than a message may carry go in several messages', () => {
  const ledger = createLossLedger();
  for (let seq = 1; seq <= 2 * LOST_RANGES_MAX + 1; seq++) ledger.add('s', 'unwritten', [[2 * seq, 2 * seq]]);
  assert.equal(
    ledger.unsent().map((d) => d.ranges.length),
    [LOST_RANGES_MAX, LOST_RANGES_MAX, 1],
  );
});

test('exactly LOST_RANGES_MAX ranges make one message, twice as many two: never an empty one', () => {
  for (const count of [LOST_RANGES_MAX, 2 * LOST_RANGES_MAX]) {
    const ledger = createLossLedger();
    for (let seq = 1; seq <= count; seq++) ledger.add('s', 'evicted', [[2 * seq, 2 * seq]]);
    const sizes = ledger.unsent().map((d) => d.ranges.length);
    assert.equal(
      sizes,
      Array.from({ length: count / LOST_RANGES_MAX }, () => LOST_RANGES_MAX),
      `${count} ranges`,
    );
  }
});

test('pending lists every declaration not yet acknowledged past, sent or not, and marks none sent', () => {
  const ledger = createLossLedger();
  ledger.add('s1', 'evicted', [[1, 10]]);
  ledger.add('s1', 'unwritten', [[12, 12]]);
  assert.is(ledger.unsent().length, 2);
  ledger.forget('s1', 5);
  const pending = ledger.pending();
  assert.equal(pending, [
    { session: 's1', reason: 'evicted', ranges: [[6, 10]] },
    { session: 's1', reason: 'unwritten', ranges: [[12, 12]] },
  ]);
  pending[0]!.ranges.push([20, 20]);
  assert.is(ledger.size, 6, 'a copy: changing it changes nothing');
  ledger.add('s2', 'evicted', [[1, 1]]);
  ledger.pending();
  assert.equal(ledger.unsent(), [{ session: 's2', reason: 'evicted', ranges: [[1, 1]] }], 'still unsent');
});

test('adding no ranges declares nothing, and does not declare again what this socket has heard', () => {
  const ledger = createLossLedger();
  ledger.add('s', 'evicted', []);
  assert.equal(ledger.unsent(), []);
  assert.is(ledger.size, 0);
  ledger.add('s', 'evicted', [[1, 2]]);
  assert.is(ledger.unsent().length, 1);
  ledger.add('s', 'evicted', []);
  assert.equal(ledger.unsent(), [], 'nothing new for this socket');
  assert.is(ledger.size, 2);
});

test.run();
