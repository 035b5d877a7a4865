import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogSink } from '../test/support/log-sink.ts';
import { createSummedWarning } from './summed-warning.ts';
import { waitFor } from '../test/support/deadline.ts';

test('the first occurrence at once, the rest summed into one line per interval, the remainder on flush', async () => {
  const sink = createLogSink();
  const warning = createSummedWarning(sink.log, (n) => `ignored ${n} thing${n === 1 ? '' : 's'}`, { intervalMs: 100 });
  for (let i = 0; i < 1000; i++) warning.note({ from: `peer-${i}` });
  assert.equal(
    sink.entries.map((e) => [e.msg, e.count, e.total, e.from]),
    [['ignored 1 thing', 1, 1, 'peer-0']],
  );
  await waitFor(() => sink.entries.length === 2, { timeout: 5000, what: 'the summed line after one interval' });
  assert.equal(
    sink.entries.slice(1).map((e) => [e.msg, e.count, e.total, e.from, e.level]),
    [['ignored 999 things', 999, 1000, 'peer-999', 40]],
  );
  warning.note();
  warning.note();
  warning.flush();
  assert.equal(
    sink.entries.slice(2).map((e) => [e.count, e.total]),
    [[2, 1002]],
  );
  warning.flush();
  assert.is(sink.entries.length, 3, 'nothing more to report');
});

test('a note may count many at once (a batch dropped in one go is one line that says how many)', () => {
  const sink = createLogSink();
  const warning = createSummedWarning(sink.log, (n) => `dropped ${n}`, { intervalMs: 60_000 });
  warning.note({ batch: 1 }, 40);
  warning.note({ batch: 2 }, 2);
  warning.flush();
  assert.equal(
    sink.entries.map((e) => [e.msg, e.count, e.total, e.batch]),
    [
      ['dropped 40', 40, 40, 1],
      ['dropped 2', 2, 42, 2],
    ],
  );
});

test.run();
