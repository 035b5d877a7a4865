// What a writer holds, without I/O: the per-socket count bound, the shared byte budget, a failed batch back in front,
// readings waiting past a gap counted as held, and everything given back on clear().
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHeldBudget } from './held-budget.ts';
import { createHeldReadings, lostItems, readingItems, type HeldItem } from './held-readings.ts';

const item = (seq: number, bytes = 100): HeldItem => ({ session: 's', seq, doc: undefined, bytes });
const seqs = (items: HeldItem[]) => items.map((i) => i.seq);

test('queued in order and taken as one batch; a failed batch goes back ahead of what came meanwhile', () => {
  const held = createHeldReadings(createHeldBudget(10_000), 10);
  assert.is(held.add([item(1), item(2)]), undefined);
  const batch = held.take();
  assert.equal(seqs(batch), [1, 2]);
  assert.is(held.queued, 0);
  held.add([item(3)]);
  held.putBack(batch);
  assert.equal(seqs(held.take()), [1, 2, 3]);
  assert.is(held.held, 3, 'held until released, queued or not');
});

test('the count bound: what would pass it is refused whole; waiting readings count against it', () => {
  const held = createHeldReadings(createHeldBudget(10_000), 4);
  held.add([item(1), item(2)]);
  held.waiting(2);
  assert.is(held.add([item(3)]), 'over 4 readings held');
  assert.is(held.queued, 2, 'nothing of the refused items queued');
  held.release(held.take());
  held.waiting(-2);
  assert.is(held.held, 0);
  assert.is(held.add([item(3), item(4), item(5), item(6)]), undefined);
});

test('the byte budget is shared, taken on add, given back on release and on clear', () => {
  const budget = createHeldBudget(250);
  const a = createHeldReadings(budget, 10);
  const b = createHeldReadings(budget, 10);
  assert.is(a.add([item(1), item(2)]), undefined);
  assert.is(b.add([item(1)]), 'the readings held for all sockets would pass 250 bytes');
  assert.is(budget.held, 200);
  a.release(a.take().slice(0, 1));
  assert.is(budget.held, 100);
  a.clear();
  assert.is(budget.held, 0);
  assert.is(a.held, 0);
  assert.is(a.queued, 0);
});

test('readingItems: a refused reading is held without a document and told; lostItems: one item a range', () => {
  const told: string[] = [];
  const items = readingItems(
    'dev-1',
    's',
    [
      { seq: 1, timestamp: '2026-01-01T00:00:00Z', value: 'ok' },
      { seq: 2, timestamp: 'never', value: 'bad clock' },
    ],
    new Date('2026-01-01T00:00:01Z'),
    (seq, { code }) => told.push(`${seq} ${code}`),
  );
  assert.equal(
    items.map((i) => [i.seq, i.doc?.value]),
    [
      [1, 'ok'],
      [2, undefined],
    ],
  );
  assert.equal(told, ['2 timestamp_invalid']);
  assert.equal(lostItems('s', 'evicted', [[1, 3]]), [
    { session: 's', seq: 1, doc: undefined, bytes: 64, lost: { through: 3, reason: 'evicted' } },
  ]);
});

test('the oldest item queued: when it was taken; a failed batch put back counts from its first take', () => {
  const held = createHeldReadings(createHeldBudget(10_000), 10);
  assert.is(held.oldestQueuedAt(), undefined);
  held.add([item(1), item(2)], 100);
  held.add([item(3)], 250);
  assert.is(held.oldestQueuedAt(), 100);
  const batch = held.take();
  assert.is(held.oldestQueuedAt(), undefined, 'in flight: no longer queued');
  held.add([item(4)], 400);
  assert.is(held.oldestQueuedAt(), 400);
  held.putBack(batch);
  assert.is(held.oldestQueuedAt(), 100);
});

test.run();
