// The marks an ack may claim: a gap stops them (so an ack never speaks for a reading the backend does not hold),
// and a range the device declared lost fills the gap, however it overlaps what is stored or waiting.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createAckMarks, type Settled } from './ack-marks.ts';

const readings = (from: number, to: number, session = 's'): Settled[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ session, seq: from + i, refused: false }));
const lost = (from: number, to: number, session = 's'): Settled => ({
  session,
  seq: from,
  refused: false,
  lostThrough: to,
});

test('readings past an evicted gap wait unacknowledged (the wedged device); its declaration frees them', () => {
  const marks = createAckMarks();
  marks.start('s', 0);
  // The spool dropped 1..3242; the device sends from 3243 up to its in-flight bound.
  assert.equal(marks.settle(readings(3243, 5242)), []);
  assert.is(marks.waiting(), 2000);
  assert.equal(marks.settle([lost(1, 3242)]), [{ type: 'ack', session: 's', seq: 5242 }]);
  assert.is(marks.waiting(), 0);
});

test('an unwritten reading in the middle of a session: the readings after it go once it is declared', () => {
  const marks = createAckMarks();
  assert.equal(marks.settle(readings(1, 6)), [{ type: 'ack', session: 's', seq: 6 }]);
  assert.equal(marks.settle(readings(8, 10)), [{ type: 'ack', session: 's', seq: 6 }]);
  assert.equal(marks.settle([lost(7, 7)]), [{ type: 'ack', session: 's', seq: 10 }]);
});

test('a declaration first, then the readings after it: acked at once', () => {
  const marks = createAckMarks();
  assert.equal(marks.settle([lost(1, 100)]), [{ type: 'ack', session: 's', seq: 100 }]);
  assert.equal(marks.settle(readings(101, 102)), [{ type: 'ack', session: 's', seq: 102 }]);
});

test('a range reaching below the mark settles what lies past it; one wholly below changes nothing', () => {
  const marks = createAckMarks();
  marks.settle(readings(1, 50));
  assert.equal(marks.settle([lost(10, 60)]), [{ type: 'ack', session: 's', seq: 60 }]);
  assert.equal(marks.settle([lost(1, 5)]), [{ type: 'ack', session: 's', seq: 60 }]);
  assert.is(marks.waiting(), 0);
});

test('readings waiting under a range are forgotten; one range reaching past another resumes after it', () => {
  const marks = createAckMarks();
  marks.settle([...readings(5, 8), lost(20, 30)]);
  assert.is(marks.waiting(), 5);
  // 1..12 covers the waiting readings and leaves 13..19 a gap: the mark stops at 12.
  assert.equal(marks.settle([lost(1, 12)]), [{ type: 'ack', session: 's', seq: 12 }]);
  assert.is(marks.waiting(), 1);
  assert.equal(marks.settle([lost(13, 25)]), [{ type: 'ack', session: 's', seq: 30 }]);
  assert.is(marks.waiting(), 0);
});

test('sessions are apart: a declaration of one frees nothing of another', () => {
  const marks = createAckMarks();
  marks.start('old', 0);
  marks.settle(readings(3, 4, 'old'));
  assert.equal(marks.settle([lost(1, 2, 'new')]), [{ type: 'ack', session: 'new', seq: 2 }]);
  assert.equal(marks.settle([lost(1, 2, 'old')]), [{ type: 'ack', session: 'old', seq: 4 }]);
});

test.run();
