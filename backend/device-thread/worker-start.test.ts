// withoutPreloads: a thread gets the process's options without its preloads, in either spelling.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withoutPreloads } from './worker-start.ts';

test('preloads go, with their values, whichever way they are written; other options stay', () => {
  const argv = ['--import', 'tsx', '--import=./test/support/exit-on-sigterm.ts', '--enable-source-maps'];
  assert.equal(withoutPreloads([...argv, '-r', 'x.cjs', '--require=y.cjs', '--no-deprecation']), [
    '--enable-source-maps',
    '--no-deprecation',
  ]);
  assert.equal(withoutPreloads(['--loader', 'l.mjs', '--experimental-loader=m.mjs', '--cpu-prof']), ['--cpu-prof']);
  assert.equal(withoutPreloads([]), []);
});

test.run();
