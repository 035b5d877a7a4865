// The backends the start-up rows compare, each a folder to run `backend/main.*` in: the working tree, and the tree
// of an older commit taken out of git (`git archive`, so the repository's worktrees and index stay as they are);
// each as `npm start` runs it (TypeScript through tsx) and compiled to JavaScript, standing in for the image, whose
// Node 24 strips the types itself (this machine's Node cannot). Both share the project's node_modules.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { transformSync } from 'esbuild';
import { root } from '../support/spawn-service.ts';

/** What a backend needs of a tree: its code, the library it imports, the manifest that makes `.js` files ESM. */
const PARTS = ['backend', 'lib', 'package.json'];

export interface StartupTrees {
  /** The folder holding `backend/main.ts` at `commit`, or the working tree (`commit` undefined). */
  source(commit?: string): string;
  /** The same tree with every `.ts` file compiled to `.js` (and its relative imports so written): `backend/main.js`. */
  compiled(tree: string): string;
  remove(): void;
}

export function createStartupTrees(): StartupTrees {
  const base = mkdtempSync(join(tmpdir(), 'bench-startup-'));
  let count = 0;
  const fresh = () => {
    const dir = join(base, String(++count));
    mkdirSync(dir);
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    return dir;
  };
  return {
    source(commit) {
      if (!commit) return root;
      const dir = fresh();
      const tar = execFileSync('git', ['archive', commit, ...PARTS], { cwd: root, maxBuffer: 256 * 2 ** 20 });
      execFileSync('tar', ['-x', '-C', dir], { input: tar });
      return dir;
    },
    compiled(tree) {
      const dir = fresh();
      cpSync(join(tree, 'package.json'), join(dir, 'package.json'));
      for (const part of ['backend', 'lib']) compileFolder(join(tree, part), join(dir, part));
      return dir;
    },
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** Every `.ts` (tests aside) as `.js` and every `.mjs` as it is, their relative `./x.ts` imports written `./x.js`. */
function compileFolder(from: string, to: string) {
  for (const entry of readdirSync(from, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name.endsWith('.test.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    const out = join(to, path.slice(from.length));
    if (!/\.(ts|mjs)$/.test(entry.name) || entry.name.endsWith('.d.ts')) continue;
    mkdirSync(dirname(out), { recursive: true });
    const text = withJsImports(readFileSync(path, 'utf8'));
    if (entry.name.endsWith('.mjs')) writeFileSync(out, text);
    else writeFileSync(out.replace(/\.ts$/, '.js'), transformSync(text, { loader: 'ts', format: 'esm' }).code);
  }
}

/** `'./x.ts'` and `"../y.ts"` as `.js`: relative specifiers only, packages (`tsx/esm/api`) untouched. */
const withJsImports = (text: string) => text.replace(/(['"])(\.{1,2}\/[^'"\n]*?)\.ts\1/g, '$1$2.js$1');
