// The spool's history without files: marks from ack records, what a removed segment must carry forward, and the
// lost records owed for readings never written.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSpoolHistory } from './spool-history.ts';

test('the mark is the highest ack record of a session, wherever it is', () => {
  const history = createSpoolHistory();
  history.wrote(3, { type: 'ack', session: 's1', seq: 40 });
  history.wrote(2, { type: 'ack', session: 's1', seq: 10 });
  assert.equal([history.mark('s1'), history.mark('s2')], [40, 0]);
});

test('a segment without ack or lost records carries nothing when it goes', () => {
  const history = createSpoolHistory();
  history.wrote(2, { type: 'ack', session: 's1', seq: 10 });
  assert.equal(history.carry(1, ['s1'], [{ session: 's1', reason: 'evicted', ranges: [[11, 20]] }]), []);
});

test('a segment holding history carries the mark and the pending losses of the sessions still to tell', () => {
  const history = createSpoolHistory();
  history.wrote(1, { type: 'ack', session: 's1', seq: 10 });
  history.wrote(1, { type: 'ack', session: 'done', seq: 99 });
  const pending = [
    { session: 's1', reason: 'evicted' as const, ranges: [[11, 20]] as Array<[number, number]> },
    { session: 's0', reason: 'unwritten' as const, ranges: [[5, 5]] as Array<[number, number]> },
  ];
  // s2 has readings and no mark yet; `done` has neither readings nor losses: nothing of it is needed.
  assert.equal(history.carry(1, ['s2', 's1'], pending), [
    { type: 'ack', session: 's1', seq: 10 },
    { type: 'lost', session: 's1', reason: 'evicted', ranges: [[11, 20]] },
    { type: 'lost', session: 's0', reason: 'unwritten', ranges: [[5, 5]] },
  ]);
  history.removed(1);
  assert.equal(history.carry(1, ['s1'], pending), [], 'gone: nothing left to carry');
});

test('readings never written are owed a lost record until one is written or a later reading shows the gap', () => {
  const history = createSpoolHistory();
  history.unwritten('s1', 4);
  history.unwritten('s1', 5);
  history.unwritten('s1', 7);
  assert.equal(history.unrecorded(), [
    {
      type: 'lost',
      session: 's1',
      reason: 'unwritten',
      ranges: [
        [4, 5],
        [7, 7],
      ],
    },
  ]);
  history.wrote(9, history.unrecorded()[0]!);
  assert.equal(history.unrecorded(), [], 'recorded');
  history.unwritten('s1', 8);
  history.written('s1');
  assert.equal(history.unrecorded(), [], 'a later reading on disk shows the gap');
});

test.run();
