// Range sets against a plain Set of numbers: random adds and subtractions give the same members either way.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SeqRange } from './device-protocol.ts';
import { addRange, addSeq, rangesSize, runsOf, subtractRanges } from './seq-ranges.ts';
import { seededRandom } from '../test/support/seeded-random.ts';

const members = (ranges: readonly SeqRange[]) =>
  ranges.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i));
const wellFormed = (ranges: readonly SeqRange[]) =>
  ranges.every(([a, b], i) => a <= b && (i === 0 || a > ranges[i - 1]![1] + 1));

test('adds and subtractions agree with a Set, and stay sorted, disjoint and joined', () => {
  for (let seed = 1; seed <= 200; seed++) {
    const { int } = seededRandom(seed);
    let ranges: SeqRange[] = [];
    const set = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const from = 1 + int(100);
      const to = from + int(seed % 2 ? 1 : 10);
      ranges = from === to ? addSeq(ranges, from) : addRange(ranges, [from, to]);
      for (let n = from; n <= to; n++) set.add(n);
    }
    const sorted = [...set].sort((a, b) => a - b);
    assert.ok(wellFormed(ranges), `seed ${seed}: ${JSON.stringify(ranges)}`);
    assert.equal(members(ranges), sorted, `seed ${seed}`);
    assert.is(rangesSize(ranges), set.size);
    assert.equal(runsOf(sorted), ranges, `seed ${seed}: runs`);
    const cut = runsOf([...new Set(Array.from({ length: 30 }, () => 1 + int(110)))].sort((a, b) => a - b));
    const left = subtractRanges(ranges, cut);
    const cutSet = new Set(members(cut));
    assert.equal(
      members(left),
      sorted.filter((n) => !cutSet.has(n)),
      `seed ${seed}: subtract`,
    );
  }
});

test('subtracting nothing leaves the ranges; subtracting them leaves nothing', () => {
  const ranges: SeqRange[] = [
    [1, 3],
    [7, 7],
    [10, 20],
  ];
  assert.equal(subtractRanges(ranges, []), ranges);
  assert.equal(subtractRanges(ranges, ranges), []);
  assert.equal(
    subtractRanges(
      [[1, 10]],
      [
        [3, 4],
        [6, 6],
      ],
    ),
    [
      [1, 2],
      [5, 5],
      [7, 10],
    ],
  );
});

test('covering ranges that touch without being joined subtract like one range', () => {
  const touching: SeqRange[] = [
    [1, 4],
    [5, 5],
    [6, 9],
  ];
  assert.equal(subtractRanges([[1, 5]], touching), []);
  assert.equal(subtractRanges([[1, 9]], touching), []);
  assert.equal(subtractRanges([[5, 10]], touching), [[10, 10]]);
});

test.run();
