// A socket is paused at its share and read again once credited below it; past the total the heaviest wait first.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createReadBudget } from './read-budget.ts';

test('a socket is paused once it holds its share, and resumed once its frames are credited', () => {
  const budget = createReadBudget({ socketMax: 100, totalMax: 1000 });
  assert.is(budget.read(1, 60, 0), false);
  assert.is(budget.read(1, 60, 1), true, 'paused at 120 held of 100');
  assert.is(budget.isPaused(1), true);
  assert.is(budget.read(1, 60, 2), false, 'told once');
  assert.is(budget.total(), 180);
  assert.equal(budget.credit(1, 1), [], 'still 120 held');
  assert.equal(budget.credit(1, 1), [1], 'resumed at 60 held');
  assert.equal(budget.credit(1, 1), [], 'not paused');
  assert.is(budget.total(), 0);
});

test('past the total the sockets above an equal part wait; a light socket goes on being read', () => {
  const budget = createReadBudget({ socketMax: 1000, totalMax: 300 });
  assert.is(budget.read(1, 200, 0), false);
  assert.is(budget.read(2, 10, 0), false);
  assert.is(budget.read(1, 100, 0), true, 'the heavy one at the total');
  assert.is(budget.read(2, 10, 0), false, 'the light one, under 310 / 2');
  assert.equal(budget.credit(1, 1), [1], 'under the total again');
});

test('back under the total, every socket paused for it is read again', () => {
  const budget = createReadBudget({ socketMax: 1000, totalMax: 100 });
  assert.is(budget.read(1, 60, 0), false);
  assert.is(budget.read(2, 60, 0), true);
  assert.is(budget.read(1, 10, 0), true);
  assert.equal(budget.credit(3, 1), [], 'an unknown socket');
  assert.equal(budget.forget(2), [1], 'socket 2 closed: 70 held');
  assert.is(budget.total(), 70);
});

test('the oldest unhandled frame is the oldest head of any socket', () => {
  const budget = createReadBudget({ socketMax: 1000, totalMax: 1000 });
  assert.is(budget.oldestAt(), undefined);
  budget.read(1, 1, 50);
  budget.read(2, 1, 20);
  budget.read(2, 1, 70);
  assert.is(budget.oldestAt(), 20);
  budget.credit(2, 1);
  assert.is(budget.oldestAt(), 50);
  budget.clear();
  assert.is(budget.oldestAt(), undefined);
  assert.is(budget.total(), 0);
});

test.run();
