// A git repository of a test's own, in a scratch folder, with no user or system configuration read: commits with
// fixed names, and the Git handle the trailer's modules take (smoke/trailer/tree.ts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createGit, type Git } from '../../smoke/trailer/tree.ts';
import { runCommand } from '../../tools/child-process.ts';

export interface TestRepo {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** git in this repository (or `cwd`; a work tree's repository is always its own); throws with its stderr. */
  git(args: string[], cwd?: string): Promise<string>;
  /** The trailer's handle on this repository. */
  handle: Git;
  /** Writes the files, stages them and commits; returns the commit. */
  commit(message: string, files?: Record<string, string>): Promise<string>;
  /** Writes and stages the files without committing. */
  stage(files: Record<string, string>): Promise<void>;
  remove(): void;
}

export async function createRepo(prefix = 'git-repo-'): Promise<TestRepo> {
  const scratch = mkdtempSync(join(tmpdir(), prefix));
  const dir = join(scratch, 'repo');
  mkdirSync(dir);
  writeFileSync(join(scratch, 'gitconfig'), '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: scratch,
    GIT_CONFIG_GLOBAL: join(scratch, 'gitconfig'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Agent',
    GIT_AUTHOR_EMAIL: 'agent@example.org',
    GIT_COMMITTER_NAME: 'Agent',
    GIT_COMMITTER_EMAIL: 'agent@example.org',
  };
  const git = async (args: string[], cwd = dir) => {
    const run = await runCommand('git', args, { cwd, env, timeoutMs: 30_000 });
    if (run.code !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr.trim()}`);
    return run.stdout.trim();
  };
  await git(['init', '--quiet', '--initial-branch=main']);
  const stage = async (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    await git(['add', '--all']);
  };
  return {
    dir,
    env,
    git,
    handle: createGit(dir, env),
    stage,
    async commit(message, files = {}) {
      await stage(files);
      await git(['commit', '--quiet', '--allow-empty', '-m', message]);
      return git(['rev-parse', 'HEAD']);
    },
    remove: () => rmSync(scratch, { recursive: true, force: true }),
  };
}

/**
 * A repository of the test's own whose index holds `workTree`'s files as they are now (what `git add --all` would
 * stage, node_modules left out): the trailer run with `env` (GIT_DIR, GIT_WORK_TREE) smokes that tree and notes
 * its evidence there, never in the project's own repository.
 */
export async function repoOfWorkTree(workTree: string, prefix = 'work-tree-repo-'): Promise<TestRepo> {
  const repo = await createRepo(prefix);
  const gitDir = join(repo.dir, '.git');
  const env = { ...repo.env, GIT_DIR: gitDir, GIT_WORK_TREE: workTree };
  // .gitignore keeps an installed node_modules out (naming it in a pathspec would make git refuse the add); a
  // node_modules that is a link to an install elsewhere is not a directory to .gitignore, so it is dropped after.
  for (const args of [
    ['add', '--all', '--', '.'],
    ['rm', '-r', '--cached', '--ignore-unmatch', '--quiet', '--', 'node_modules'],
  ]) {
    const run = await runCommand('git', args, { cwd: workTree, env, timeoutMs: 60_000 });
    if (run.code !== 0) throw new Error(`git ${args[0]} of ${workTree}: ${run.stderr.trim()}`);
  }
  const git = async (args: string[]) => {
    const done = await runCommand('git', args, { cwd: workTree, env, timeoutMs: 30_000 });
    if (done.code !== 0) throw new Error(`git ${args.join(' ')}: ${done.stderr.trim()}`);
    return done.stdout.trim();
  };
  return { ...repo, env, git, handle: createGit(workTree, env) };
}
