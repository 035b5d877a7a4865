// The smoked tree, named as git names it: the index's tree, with staged changes and without unstaged ones or
// untracked files; the copy the images are built from holds exactly that tree's files.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRepo, type TestRepo } from '../../test/support/git-repo.ts';
import { commitTree, indexTree, withTreeCopy } from './tree.ts';

const test = suite('tree');
let repo: TestRepo;
test.before(async () => {
  repo = await createRepo('trailer-tree-');
});
test.after(() => repo.remove());

test('an unborn branch: the index still names a tree, and there is no parent', async () => {
  await repo.stage({ 'a.txt': 'one' });
  const named = await indexTree(repo.handle);
  assert.ok(named.ok);
  assert.is(named.ok && named.tree, await repo.git(['write-tree']));
  assert.is(named.ok && named.short, named.ok && named.tree.slice(0, 12));
  assert.is(await commitTree(repo.handle, 'HEAD'), undefined);
});

test('staged changes are in the tree; unstaged changes and untracked files are not, nor in its copy', async () => {
  await repo.commit('First', { 'a.txt': 'one' });
  const committed = await indexTree(repo.handle);
  writeFileSync(join(repo.dir, 'a.txt'), 'unstaged');
  writeFileSync(join(repo.dir, 'untracked.txt'), 'x');
  assert.equal(await indexTree(repo.handle), committed, 'unstaged and untracked change nothing');
  await repo.git(['add', 'a.txt']);
  const staged = await indexTree(repo.handle);
  assert.ok(staged.ok && committed.ok && staged.tree !== committed.tree, 'a staged change is a new tree');
  const seen = await withTreeCopy(repo.handle, staged.ok ? staged.tree : '', async (dir) => ({
    a: readFileSync(join(dir, 'a.txt'), 'utf8'),
    untracked: existsSync(join(dir, 'untracked.txt')),
    dir,
  }));
  assert.ok(!('problem' in seen));
  const { a, untracked, dir } = seen as { a: string; untracked: boolean; dir: string };
  assert.equal([a, untracked], ['unstaged', false]);
  assert.ok(dir.endsWith(staged.ok ? staged.tree : '?'), 'the copy is named by the tree');
  const again = await withTreeCopy(repo.handle, staged.ok ? staged.tree : '', async (reused) => reused);
  assert.is(again, dir, 'and reused');
  assert.is(readFileSync(join(repo.dir, '.git', 'index')).length > 0, true, 'the real index is still there');
  assert.is(await repo.git(['diff', '--cached', '--name-only']), 'a.txt', 'and untouched');
});

test('a tree that is not there, a repository that is not one: one line each', async () => {
  const copied = await withTreeCopy(repo.handle, 'f'.repeat(40), async () => 'used');
  assert.match((copied as { problem: string }).problem, /^tree ffffffffffff could not be copied \(/);
  await repo.git(['checkout', '--quiet', '--detach']);
  const head = await commitTree(repo.handle, 'HEAD');
  assert.is(head?.commit, await repo.git(['rev-parse', 'HEAD']), 'a detached HEAD is a parent as any');
});

test.run();
