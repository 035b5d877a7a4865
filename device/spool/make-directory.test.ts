// makeDirectory: parents made, an existing directory kept, and a place that cannot hold one refused at once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDirectory } from './make-directory.ts';

const scratch = mkdtempSync(join(tmpdir(), 'make-directory-'));
test.after(() => rmSync(scratch, { recursive: true, force: true }));

const codeOf = (run: () => void) => {
  try {
    run();
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
  return 'no error';
};

test('makes the missing parents; an existing directory is fine', () => {
  const dir = join(scratch, 'a', 'b', 'c');
  makeDirectory(dir);
  assert.ok(statSync(dir).isDirectory());
  makeDirectory(dir);
  makeDirectory(scratch);
});

test('a file in the way is EEXIST, a file as a parent ENOTDIR', () => {
  const file = join(scratch, 'file');
  writeFileSync(file, '');
  assert.is(
    codeOf(() => makeDirectory(file)),
    'EEXIST',
  );
  assert.is(
    codeOf(() => makeDirectory(join(file, 'spool'))),
    'ENOTDIR',
  );
});

// Node's recursive mkdir never returns here (it spins at 100% CPU); this test would hang until the runner's deadline.
test('under /proc, where mkdir says ENOENT with the parent there: ENOENT, at once', () => {
  assert.is(
    codeOf(() => makeDirectory('/proc/spool')),
    'ENOENT',
  );
  assert.is(
    codeOf(() => makeDirectory('/proc/a/b')),
    'ENOENT',
  );
});

test.run();
