import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entryArgs } from './node-entry.ts';
import { projectRoot } from './project-root.ts';

const dir = mkdtempSync(join(tmpdir(), 'node-entry-'));
mkdirSync(join(dir, 'smoke'));
writeFileSync(join(dir, 'smoke', 'cli.js'), '');
test.after(() => rmSync(dir, { recursive: true, force: true }));

const tsx = (entry: string) => ['--import', 'tsx', join(projectRoot, entry)];

test('without JS_ENTRIES_DIR, an entry runs through tsx from the project root', () => {
  assert.equal(entryArgs('smoke/cli.ts', {}), tsx('smoke/cli.ts'));
});

test('with JS_ENTRIES_DIR, an entry it holds runs from there; one it does not hold, through tsx', () => {
  assert.equal(entryArgs('smoke/cli.ts', { JS_ENTRIES_DIR: dir }), [join(dir, 'smoke', 'cli.js')]);
  assert.equal(entryArgs('dev/stack.ts', { JS_ENTRIES_DIR: dir }), tsx('dev/stack.ts'));
});

test('a relative JS_ENTRIES_DIR is not used (it would depend on the working directory)', () => {
  assert.equal(entryArgs('smoke/cli.ts', { JS_ENTRIES_DIR: 'smoke' }), tsx('smoke/cli.ts'));
});

test.run();
