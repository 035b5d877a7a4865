// The pure merge of a declaration's fresh parts into a session's recorded lost ranges.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { countWithin, mergeLosses } from './loss-merge.ts';

test('fresh parts join the recorded ranges they touch; a range left alone is not rewritten', () => {
  const recorded = [
    { from: 1, to: 5, lost: 5 },
    { from: 20, to: 30, lost: 10 },
    { from: 40, to: 40, lost: 1 },
  ];
  const fresh = [
    { from: 6, to: 9, lost: 4 },
    { from: 11, to: 19, lost: 8 },
  ];
  assert.equal(mergeLosses(recorded, fresh), [
    { from: 1, to: 9, lost: 9, replaces: [1] },
    { from: 11, to: 30, lost: 18, replaces: [20] },
  ]);
});

test('a fresh part alone is written as it is; nothing fresh changes nothing', () => {
  assert.equal(mergeLosses([], [{ from: 3, to: 4, lost: 2 }]), [{ from: 3, to: 4, lost: 2, replaces: [] }]);
  assert.equal(mergeLosses([{ from: 1, to: 2, lost: 2 }], []), []);
});

test('a recorded range inside a wider one (a write that failed half way) is not counted twice', () => {
  const recorded = [
    { from: 1, to: 20, lost: 20 },
    { from: 11, to: 20, lost: 10 },
  ];
  assert.equal(mergeLosses(recorded, [{ from: 21, to: 22, lost: 2 }]), [
    { from: 1, to: 22, lost: 22, replaces: [1, 11] },
  ]);
});

test('countWithin: how many numbers each range holds, in one walk', () => {
  const ranges: Array<[number, number]> = [
    [1, 3],
    [10, 10],
    [20, 25],
  ];
  assert.equal(countWithin(ranges, [2, 3, 5, 10, 21, 30]), [2, 1, 1]);
  assert.equal(countWithin(ranges, []), [0, 0, 0]);
});

test.run();
