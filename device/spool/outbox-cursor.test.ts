// The outbox cursor alone: the first unsent reading, the count in flight, and a frame's end, on hand-built blocks.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { frameEnd, inFlight, live, unsent, type Block } from './outbox-cursor.ts';

const block = (id: number, seqs: number[], head = 0, length = 10): Block => ({
  id,
  session: 's',
  seqs,
  offsets: seqs.map((_, i) => i * (length + 1)),
  lengths: seqs.map(() => length),
  head,
});

test('unsent: the oldest unacknowledged with nothing sent, else the one after the cursor, across blocks', () => {
  const blocks = [block(1, [1, 2, 3], 1), block(2, [4, 5])];
  assert.equal(live(blocks[0]!), 2);
  assert.equal(unsent(blocks, undefined), { block: blocks[0], index: 1 });
  assert.equal(unsent(blocks, { block: 1, index: 1 }), { block: blocks[0], index: 2 });
  assert.equal(unsent(blocks, { block: 1, index: 2 }), { block: blocks[1], index: 0 });
  assert.is(unsent(blocks, { block: 2, index: 1 }), undefined);
  // Acknowledged past the cursor: the next unsent is the first unacknowledged.
  assert.equal(unsent([block(1, [1, 2, 3], 3), block(2, [4, 5], 1)], { block: 1, index: 0 })?.index, 1);
});

test('inFlight: the unacknowledged readings up to the cursor, none without one', () => {
  const blocks = [block(1, [1, 2, 3], 1), block(2, [4, 5])];
  assert.is(inFlight(blocks, undefined), 0);
  assert.is(inFlight(blocks, { block: 1, index: 1 }), 1);
  assert.is(inFlight(blocks, { block: 2, index: 0 }), 3);
  assert.is(inFlight(blocks, { block: 2, index: 1 }), 4);
  assert.is(inFlight([block(1, [1, 2, 3], 3)], { block: 1, index: 1 }), 0, 'all acknowledged');
});

test('frameEnd: as many as the count and the room allow, commas counted, one reading at least', () => {
  const b = block(1, [1, 2, 3, 4], 0, 10);
  assert.is(frameEnd(b, 0, 10, 1000), 4);
  assert.is(frameEnd(b, 0, 2, 1000), 2);
  assert.is(frameEnd(b, 0, 10, 21), 2, '10 + 1 + 10');
  assert.is(frameEnd(b, 0, 10, 20), 1, 'the comma does not fit');
  assert.is(frameEnd(b, 1, 10, 5), 2, 'too large for the room, but alone it still goes');
});

test.run();
