// The tree the trailer smokes, named as git names it: the tree the index holds when the trailer starts (`git
// write-tree`), the commit it will follow (HEAD), and a copy of a tree's files to build the images from.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { explain, runCommand, type CommandResult } from '../../tools/child-process.ts';

const GIT_TIMEOUT_MS = 30_000;

/** git in one repository: the trailer's project, or the repository GIT_DIR names. */
export interface Git {
  /** `keepBytes`: how much of its output to keep (runCommand's default unless said). */
  run(args: string[], extraEnv?: NodeJS.ProcessEnv, keepBytes?: number): Promise<CommandResult>;
  /** Why a git command failed, in a few words. */
  why(args: string[], result: CommandResult): string;
}

export function createGit(cwd: string, env: NodeJS.ProcessEnv): Git {
  return {
    run: (args, extraEnv = {}, keepBytes) =>
      runCommand('git', args, { cwd, env: { ...env, ...extraEnv }, timeoutMs: GIT_TIMEOUT_MS, keepBytes }),
    why: (args, result) => explain(`git ${args[0]}`, result, 'first', GIT_TIMEOUT_MS),
  };
}

export type TreeName = { ok: true; tree: string; short: string } | { ok: false; reason: string };

export const shortName = (name: string) => name.slice(0, 12);

/**
 * The tree the index holds: what `git commit` would record now. Staged changes are in it; unstaged changes and
 * untracked files are not (the images are built from this tree's files, so they are not in the images either).
 */
export async function indexTree(git: Git): Promise<TreeName> {
  const run = await git.run(['write-tree']);
  const tree = run.stdout.trim();
  if (run.code === 0 && /^[0-9a-f]{40,64}$/.test(tree)) return { ok: true, tree, short: shortName(tree) };
  if (run.missing) return { ok: false, reason: 'git not found on PATH: the smoked tree cannot be named' };
  if (/not a git repository/i.test(run.stderr))
    return { ok: false, reason: 'not a git repository: the smoked tree cannot be named' };
  return { ok: false, reason: `the index cannot be written as a tree (${git.why(['write-tree'], run)})` };
}

/** A commit and its tree; undefined for HEAD on an unborn branch (the commit to be made has no parent). */
export async function commitTree(git: Git, rev: string): Promise<{ commit: string; tree: string } | undefined> {
  const [commit, tree] = await Promise.all(
    [`${rev}^{commit}`, `${rev}^{tree}`].map(async (name) => {
      const run = await git.run(['rev-parse', '--verify', '--quiet', name]);
      return run.code === 0 ? run.stdout.trim() : undefined;
    }),
  );
  return commit && tree ? { commit, tree } : undefined;
}

// Copies are kept by tree: a tree's files never change, so a warm run reuses its copy where the engine's build
// context cache already knows every file. The oldest beyond this many are removed.
const KEPT_COPIES = 6;

/**
 * The tree's files in a directory named by the tree (through a temporary index, so the repository's own index and
 * working tree are never touched), made once and reused; `use` runs with its path.
 */
export async function withTreeCopy<T>(
  git: Git,
  tree: string,
  use: (dir: string) => Promise<T>,
): Promise<T | { problem: string }> {
  const home = join(tmpdir(), 'service-health-kit-smoke-trees');
  const dir = join(home, tree);
  if (!existsSync(dir)) {
    await mkdir(home, { recursive: true });
    const scratch = await mkdtemp(join(home, `.${shortName(tree)}-`));
    try {
      const index = { GIT_INDEX_FILE: join(scratch, 'index') };
      for (const args of [
        ['read-tree', tree],
        ['checkout-index', '--all', `--prefix=${scratch}/tree/`],
      ]) {
        const run = await git.run(args, index);
        if (run.code !== 0) return { problem: `tree ${shortName(tree)} could not be copied (${git.why(args, run)})` };
      }
      // Whole or not at all: another trailer copying the same tree at once may have won; its copy is the same.
      await rename(join(scratch, 'tree'), dir).catch(() => undefined);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
  const now = new Date();
  await utimes(dir, now, now).catch(() => undefined);
  await prune(home, tree);
  return use(dir);
}

/** Removes the least recently used copies beyond KEPT_COPIES, never `keep`. */
async function prune(home: string, keep: string): Promise<void> {
  const names = (await readdir(home)).filter((name) => /^[0-9a-f]{40,64}$/.test(name) && name !== keep);
  const aged = await Promise.all(
    names.map(async (name) => ({ name, at: (await stat(join(home, name)).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  const old = aged.sort((a, b) => b.at - a.at).slice(KEPT_COPIES - 1);
  await Promise.all(old.map(({ name }) => rm(join(home, name), { recursive: true, force: true })));
}
