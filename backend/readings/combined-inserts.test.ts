// Combined inserts: batches waiting for the same turn go into one write, bounded, and each caller gets its own result.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createCombinedInserts, splitResult, type InsertResult } from './combined-inserts.ts';

/** Turns given by hand, and writes recorded; each write's outcome is `answer`'s for its docs. */
function setup(answer: (docs: string[]) => InsertResult | Error | Promise<InsertResult>, maxReadings?: number) {
  const turns: (() => void)[] = [];
  const writes: string[][] = [];
  const inserts = createCombinedInserts<string>({
    turn: () => new Promise<void>((resolve) => turns.push(resolve)),
    async write(docs) {
      writes.push(docs);
      const outcome = answer(docs);
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
    maxReadings,
  });
  /** Gives the turn asked for, and lets what it starts run. */
  const giveTurn = async () => {
    turns.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { inserts, turns, writes, giveTurn };
}

/** Every doc named `dup…` is a duplicate: its position in the write. */
const dupsStored = (docs: string[]): InsertResult => {
  const duplicates = docs.flatMap((doc, i) => (doc.startsWith('dup') ? [i] : []));
  return { inserted: docs.length - duplicates.length, duplicates };
};

test('batches waiting for the same turn: one write of them all, in order; each its own duplicates', async () => {
  const { inserts, turns, writes, giveTurn } = setup(dupsStored);
  const first = inserts.insert(['a1', 'dup-a2', 'a3']);
  const second = inserts.insert(['dup-b1', 'b2']);
  const third = inserts.insert(['c1']);
  assert.is(turns.length, 1, 'one turn asked for, for all of them');
  await giveTurn();
  assert.equal(writes, [['a1', 'dup-a2', 'a3', 'dup-b1', 'b2', 'c1']]);
  assert.equal(await first, { inserted: 2, duplicates: [1] });
  assert.equal(await second, { inserted: 1, duplicates: [0] }, 'positions in its own batch, not in the write');
  assert.equal(await third, { inserted: 1, duplicates: [] });
  assert.is(turns.length, 0, 'no turn asked for once none waits');
});

test('a batch alone is written as it is, its result passed on unchanged', async () => {
  const { inserts, writes, giveTurn } = setup(() => ({ inserted: 7, duplicates: [0] }));
  const alone = inserts.insert(['a1', 'a2']);
  await giveTurn();
  assert.equal(writes, [['a1', 'a2']]);
  assert.equal(await alone, { inserted: 7, duplicates: [0] });
});

test('a write that fails fails every batch in it, with the same error', async () => {
  const failure = new Error('the database did not acknowledge the write within 6000 ms');
  const { inserts, giveTurn } = setup(() => failure);
  const both = [inserts.insert(['a1']), inserts.insert(['b1', 'b2'])].map((p) =>
    p.then(
      () => 'ok',
      (e: unknown) => e,
    ),
  );
  await giveTurn();
  assert.equal(await Promise.all(both), [failure, failure]);
});

test('the bound: batches behind the first join while their readings fit; the first goes whole', async () => {
  const { inserts, turns, writes, giveTurn } = setup(dupsStored, 4);
  const results = [['a1', 'a2', 'a3', 'a4', 'a5'], ['b1'], ['c1', 'c2'], ['d1', 'd2'], ['e1']].map((docs) =>
    inserts.insert(docs),
  );
  await giveTurn();
  assert.equal(writes, [['a1', 'a2', 'a3', 'a4', 'a5']], 'over the bound alone, never split');
  assert.is(turns.length, 1, 'the rest ask for a turn of their own, without waiting for that write');
  await giveTurn();
  await giveTurn();
  assert.equal(writes.slice(1), [
    ['b1', 'c1', 'c2'],
    ['d1', 'd2', 'e1'],
  ]);
  assert.equal(
    (await Promise.all(results)).map((r) => r.inserted),
    [5, 1, 2, 2, 1],
  );
});

test('a batch that comes while a write is in flight waits for the next turn, not for that write', async () => {
  const answers: (() => void)[] = [];
  const later = (docs: string[]) =>
    new Promise<InsertResult>((resolve) => answers.push(() => resolve(dupsStored(docs))));
  const { inserts, writes, giveTurn } = setup(later);
  const first = inserts.insert(['a1']);
  await giveTurn();
  const second = inserts.insert(['b1']);
  await giveTurn();
  assert.equal(writes, [['a1'], ['b1']], 'two writes in flight');
  answers.forEach((answer) => answer());
  assert.equal(await Promise.all([first, second]), [
    { inserted: 1, duplicates: [] },
    { inserted: 1, duplicates: [] },
  ]);
});

test('splitResult: duplicates given back to the batch holding them, in the order given, past empty ones', () => {
  assert.equal(splitResult({ inserted: 3, duplicates: [4, 0, 2] }, [2, 0, 3, 1]), [
    { inserted: 1, duplicates: [0] },
    { inserted: 0, duplicates: [] },
    { inserted: 1, duplicates: [2, 0] },
    { inserted: 1, duplicates: [] },
  ]);
});

test.run();
