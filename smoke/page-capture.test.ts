// The screenshot of a page that moves on, on a scripted tab: each of its first moves gives the picture its bound
// again, and a page that never stops moving still gets an answer, with the reason.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { screenshot } from './page-capture.ts';
import { scriptedPage, scriptedWatch } from '../test/support/scripted-page.ts';

const dir = mkdtempSync(join(tmpdir(), 'page-capture-test-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('a move overlaps the capture and lands late: the new document is pictured, past the first bound', async () => {
  const { page } = scriptedPage([Infinity, 150]);
  const watch = scriptedWatch();
  const file = join(dir, 'moved.png');
  const shot = screenshot(page, file, 300, watch);
  await sleep(200);
  watch.move(); // the first capture, never answered, is dropped
  await sleep(200);
  watch.land(); // 400 ms in: past the first bound, and the new document's capture takes 150 ms more
  assert.is(await shot, null);
  assert.is(readFileSync(file, 'utf8'), 'capture 2');
});

test('a page that keeps moving: an answer that says so, and no picture', async () => {
  const { page, captures } = scriptedPage([Infinity]);
  const watch = scriptedWatch();
  const file = join(dir, 'restless.png');
  let done = false;
  const shot = screenshot(page, file, 200, watch).finally(() => (done = true));
  for (let i = 0; i < 100 && !done; i++) {
    await sleep(50);
    watch.move();
    watch.land();
  }
  assert.ok(done, 'answered before 100 moves');
  assert.match((await shot)!, /^screenshot not taken within \d+ms \(the page moved on \d+ times meanwhile\)$/);
  assert.ok(captures() > 2, `taken again after each move (${captures()} captures)`);
  assert.not.ok(existsSync(file));
});

test('a page that does not move: the bound as given, and the reason says it', async () => {
  const { page } = scriptedPage([Infinity]);
  assert.is(await screenshot(page, join(dir, 'still.png'), 100, scriptedWatch()), 'screenshot not taken within 100ms');
});

test.run();
