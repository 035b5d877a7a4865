// A wait past its bound is named once on stderr; one that ends first says nothing and leaves no timer behind.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { noticeIfSlow } from './wait-notice.ts';

test('a wait still running at the bound: one line naming it, and its own outcome', async () => {
  const said: string[] = [];
  let finish!: (value: string) => void;
  const work = noticeIfSlow(
    new Promise<string>((resolve) => (finish = resolve)),
    'Chromium to start',
    (line) => said.push(line),
    0,
  );
  await new Promise((resolve) => setTimeout(resolve, 5)); // the bound (0 ms) has passed; the work has not ended
  finish('started');
  assert.is(await work, 'started');
  assert.equal(said, ['smoke: waiting for Chromium to start']);
});

test('a wait that ends before the bound: nothing said, its failure passed on', async () => {
  const said: string[] = [];
  // A bound of an hour: were its timer left running, this file would never end.
  const failing = noticeIfSlow(Promise.reject(new Error('no Chromium')), 'Chromium', (line) => said.push(line), 3.6e6);
  const outcome = await failing.then(
    () => 'settled',
    (error: Error) => error.message,
  );
  assert.is(outcome, 'no Chromium');
  assert.is(await noticeIfSlow(Promise.resolve(1), 'x', (line) => said.push(line), 3.6e6), 1);
  assert.equal(said, []);
});

test.run();
