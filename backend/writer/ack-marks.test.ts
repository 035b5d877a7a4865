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

const refusal = (seq: number, session = 's'): Settled => ({ session, seq, refused: true });

test('a refusal is named in the ack that passes it, and again when a resend reaches it below the mark', () => {
  const marks = createAckMarks();
  assert.equal(marks.settle([...readings(1, 1), refusal(2), ...readings(3, 4)]), [
    { type: 'ack', session: 's', seq: 4, refused: [2] },
  ]);
  // The device resends 1..4 (its socket closed before the ack came): the ack is true of that frame too.
  assert.equal(marks.settle([...readings(1, 1), refusal(2), ...readings(3, 4)]), [
    { type: 'ack', session: 's', seq: 4, refused: [2] },
  ]);
  // A resend of readings that were stored names no refusal.
  assert.equal(marks.settle(readings(3, 4)), [{ type: 'ack', session: 's', seq: 4 }]);
  assert.is(marks.through('s'), 4);
  assert.is(marks.waiting(), 0);
});

test('refusals are named in ascending order, whatever order they were settled in', () => {
  const marks = createAckMarks();
  marks.settle(readings(1, 10));
  // Two resent frames, the later one first: both refusals lie below the mark.
  assert.equal(marks.settle([refusal(7), refusal(3), refusal(5)]), [
    { type: 'ack', session: 's', seq: 10, refused: [3, 5, 7] },
  ]);
  // A refusal waiting past a gap is named when the gap fills, after one below the mark in the same batch.
  marks.settle([refusal(13), ...readings(14, 14)]);
  assert.equal(marks.settle([refusal(12), refusal(4), ...readings(11, 11)]), [
    { type: 'ack', session: 's', seq: 14, refused: [4, 12, 13] },
  ]);
});

test('a refusal past a gap waits with the readings, and is named once the gap fills', () => {
  const marks = createAckMarks();
  assert.equal(marks.settle([...readings(1, 2), refusal(4), ...readings(5, 5)]), [
    { type: 'ack', session: 's', seq: 2 },
  ]);
  assert.is(marks.waiting(), 2);
  assert.equal(marks.settle(readings(3, 3)), [{ type: 'ack', session: 's', seq: 5, refused: [4] }]);
  assert.is(marks.waiting(), 0);
});

test('a seq settled twice past a gap waits once, and keeps what it was first settled as', () => {
  const marks = createAckMarks();
  marks.start('s', 0);
  assert.equal(marks.settle([...readings(3, 3), refusal(4)]), []);
  assert.equal(marks.settle([...readings(3, 3), refusal(4), ...readings(3, 3)]), []);
  assert.is(marks.waiting(), 2);
  assert.equal(marks.settle(readings(1, 2)), [{ type: 'ack', session: 's', seq: 4, refused: [4] }]);
  assert.is(marks.waiting(), 0);
});

test('nothing is acknowledged while a session has no mark past 0; a started session acks from its start', () => {
  const marks = createAckMarks();
  assert.is(marks.through('s'), undefined);
  assert.equal(marks.settle(readings(2, 3)), []);
  assert.is(marks.through('s'), 0);
  const resumed = createAckMarks();
  resumed.start('s', 40);
  // Start only sets where a session begins: a second start does not move it.
  resumed.start('s', 10);
  assert.is(resumed.through('s'), 40);
  assert.equal(resumed.settle(readings(41, 42)), [{ type: 'ack', session: 's', seq: 42 }]);
  assert.equal(resumed.settle(readings(30, 31)), [{ type: 'ack', session: 's', seq: 42 }]);
});

test('one ack per session in a batch, in the order the sessions first appear', () => {
  const marks = createAckMarks();
  const batch = [...readings(1, 2, 'b'), ...readings(1, 1, 'a'), ...readings(3, 3, 'b'), refusal(2, 'a')];
  assert.equal(marks.settle(batch), [
    { type: 'ack', session: 'b', seq: 3 },
    { type: 'ack', session: 'a', seq: 2, refused: [2] },
  ]);
});

test('a lost range over waiting readings: a refusal it covers is not named, one past it is', () => {
  const marks = createAckMarks();
  marks.settle([refusal(3), ...readings(4, 4), refusal(9), ...readings(10, 10)]);
  assert.is(marks.waiting(), 4);
  assert.equal(marks.settle([lost(1, 8)]), [{ type: 'ack', session: 's', seq: 10, refused: [9] }]);
  assert.is(marks.waiting(), 0);
  // A range declared again, wholly below the mark, names nothing.
  assert.equal(marks.settle([lost(1, 8)]), [{ type: 'ack', session: 's', seq: 10 }]);
});

test('a range declared twice past a gap waits once; the longer declaration is the one kept', () => {
  const marks = createAckMarks();
  marks.settle([lost(5, 6)]);
  marks.settle([lost(5, 9), lost(5, 7)]);
  assert.is(marks.waiting(), 1);
  assert.equal(marks.settle(readings(1, 4)), [{ type: 'ack', session: 's', seq: 9 }]);
  assert.is(marks.waiting(), 0);
});

test('a range of one number past the mark acts like a reading that was stored', () => {
  const marks = createAckMarks();
  marks.settle(readings(1, 2));
  assert.equal(marks.settle([lost(3, 3)]), [{ type: 'ack', session: 's', seq: 3 }]);
  assert.equal(marks.settle([lost(5, 5)]), [{ type: 'ack', session: 's', seq: 3 }]);
  assert.is(marks.waiting(), 1);
  assert.equal(marks.settle(readings(4, 4)), [{ type: 'ack', session: 's', seq: 5 }]);
});

test('a range ending on a waiting reading forgets it with the rest it covers', () => {
  const marks = createAckMarks();
  marks.settle(readings(1, 4));
  marks.settle(readings(6, 7));
  assert.is(marks.waiting(), 2);
  assert.equal(marks.settle([lost(5, 7)]), [{ type: 'ack', session: 's', seq: 7 }]);
  assert.is(marks.waiting(), 0);
  assert.equal(marks.settle(readings(8, 8)), [{ type: 'ack', session: 's', seq: 8 }]);
});

test('a range overtaken by another still reaches its end, past a reading waiting right after the mark', () => {
  const marks = createAckMarks();
  marks.start('s', 0);
  // Declared 5..20; reading 9 stored; then 1..8 declared: the mark passes 9 and goes on to 20.
  marks.settle([lost(5, 20)]);
  marks.settle(readings(9, 9));
  assert.equal(marks.settle([lost(1, 8)]), [{ type: 'ack', session: 's', seq: 20 }]);
  assert.is(marks.waiting(), 0);
  assert.equal(marks.settle(readings(21, 21)), [{ type: 'ack', session: 's', seq: 21 }]);
});

test('two ranges overtaken at once: the one that reaches further decides where the mark stops', () => {
  const marks = createAckMarks();
  marks.start('s', 0);
  marks.settle([lost(3, 12), lost(5, 30), ...readings(40, 40)]);
  assert.is(marks.waiting(), 3);
  assert.equal(marks.settle([lost(1, 6)]), [{ type: 'ack', session: 's', seq: 30 }]);
  assert.is(marks.waiting(), 1);
  assert.equal(marks.settle(readings(31, 39)), [{ type: 'ack', session: 's', seq: 40 }]);
  assert.is(marks.waiting(), 0);
});

test('beyond: a declared range less what lies at or below the mark, refusals included; a new session all of it', () => {
  const marks = createAckMarks();
  assert.equal(marks.settle([...readings(1, 1), { session: 's', seq: 2, refused: true }, ...readings(3, 3)]), [
    { type: 'ack', session: 's', seq: 3, refused: [2] },
  ]);
  assert.equal(marks.beyond('s', [[1, 5]])[0], [[4, 5]]);
  assert.equal(marks.beyond('s', [[2, 3]])[0], []);
  assert.equal(marks.beyond('s', [[4, 4]])[0], [[4, 4]]);
  assert.equal(marks.beyond('t', [[1, 5]])[0], [[1, 5]]);
});

test('beyond: a refusal waiting past a gap, and the refusals given, are left out of a declared range', () => {
  const marks = createAckMarks();
  marks.start('s1', 0);
  marks.settle([
    { session: 's1', seq: 3, refused: true },
    { session: 's1', seq: 4, refused: false },
  ]);
  assert.equal(marks.beyond('s1', [[1, 6]])[0], [
    [1, 2],
    [4, 6],
  ]);
  assert.equal(marks.beyond('s1', [[1, 6]], [5])[0], [
    [1, 2],
    [4, 4],
    [6, 6],
  ]);
});

test('beyond: many ranges at once, each less the refusals inside it, in one pass', () => {
  const marks = createAckMarks();
  marks.start('s', 2);
  const ranges: Array<[number, number]> = Array.from({ length: 1000 }, (_, i) => [2 * i + 1, 2 * i + 1]);
  const left = marks.beyond('s', ranges, [7, 9, 1999]);
  assert.is(left.length, 1000);
  assert.equal(left.slice(0, 6), [[], [[3, 3]], [[5, 5]], [], [], [[11, 11]]]);
  assert.equal(left[999], []);
  assert.equal(marks.beyond('s', [[1, 10]], [4, 5, 8]), [
    [
      [3, 3],
      [6, 7],
      [9, 10],
    ],
  ]);
});

test.run();
