// The runner's order: longest first, and files that take turns at one resource counted as one chain.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { longestFirst, SEED_PATH } from './timings.ts';

const items = (...files: string[]) => files.map((file) => ({ file }));
const lengths: Record<string, number> = { long: 200, short: 10, middle: 50, turnA: 120, turnB: 100 };
const length = (file: string) => lengths[file]!;

test('files are ordered longest first', () => {
  const ordered = longestFirst(items('short', 'long', 'middle'), length);
  assert.equal(
    ordered.map((item) => item.file),
    ['long', 'middle', 'short'],
  );
});

test('files taking turns count as their sum, so the chain starts before a longer single file', () => {
  const turnsOf = (file: string) => (file.startsWith('turn') ? 'resource' : undefined);
  const ordered = longestFirst(items('short', 'long', 'turnB', 'middle', 'turnA'), length, turnsOf);
  assert.equal(
    ordered.map((item) => item.file),
    ['turnA', 'turnB', 'long', 'middle', 'short'],
  );
});

// A name the seed keeps after its file is gone costs nothing: only the selected files are looked up.
test('the committed seed holds a whole run, in whole seconds as `--save-times` writes it', () => {
  const seed = Object.entries(JSON.parse(readFileSync(SEED_PATH, 'utf8')) as Record<string, number>);
  assert.ok(seed.length > 50, `${seed.length} files in ${SEED_PATH}`);
  assert.equal(
    seed.filter(([, ms]) => !Number.isInteger(ms / 1000) || ms < 0),
    [],
  );
});

test.run();
