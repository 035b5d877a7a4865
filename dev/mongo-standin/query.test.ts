// The stand-in's sort with a limit: the first documents in order, exactly as a whole sort gives them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Document } from 'bson';
import { firstInOrder, sortDocuments } from './query.ts';
import { seededRandom } from '../../test/support/seeded-random.ts';

// Few distinct values, so that ties are common; several types, which sort by type first; and missing fields.
const VALUES = [undefined, null, 0, 1, 2.5, -3, 'a', 'b', 'ab', new Date(0), new Date(1000), true, false];
const SORTS: Document[] = [{ a: 1 }, { a: -1 }, { a: 1, b: -1 }, { b: -1, a: 1 }, { 'c.d': 1, a: -1 }, {}];

test('firstInOrder is the start of the stable sort, ties and all, for 300 random collections', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const { int, pick } = seededRandom(seed);
    const docs: Document[] = Array.from({ length: int(60) }, (_, n) => {
      const doc: Document = { n };
      for (const field of ['a', 'b']) if (int(5) > 0) doc[field] = pick(VALUES);
      if (int(2) === 0) doc.c = { d: pick(VALUES) };
      return doc;
    });
    const sort = pick(SORTS);
    const count = 1 + int(70);
    const sorted = [...docs];
    sortDocuments(sorted, sort);
    const expected = sorted.slice(0, count).map((doc) => doc.n);
    assert.equal(
      firstInOrder(docs, sort, count).map((doc) => doc.n),
      expected,
      `seed ${seed}, ${JSON.stringify(sort)}`,
    );
  }
});

test('a sort direction other than 1 or -1 is refused as by the whole sort', () => {
  assert.throws(() => firstInOrder([{ a: 1 }], { a: 2 }, 1), /sorts by 1 or -1 only, not 2/);
});

test.run();
