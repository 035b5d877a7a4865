// The files a run starts (its test files, their preloads, the unit batch) as JavaScript, from one esbuild build whose
// shared modules are chunks of their own: a test process then runs on plain node, without tsx, which cost each
// process about 0.4 CPU-s on Node 20; most packages come in the bundles (../support/bundled-packages.ts). One build
// per set of files and source tree, under .tmp/test-js/, made by whichever runner gets there first (an atomic
// rename). TEST_TSX=1 runs every file through tsx.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { utimesSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildFailure, type Metafile, type Plugin } from 'esbuild';
import { projectRoot as root } from '../../tools/project-root.ts';
import { BATCH, PRELOADS, type TestBundles } from './bundles.ts';
import { sourceAddressed } from './source-addressed.ts';
import { removeStaleBuilds } from '../support/stale-builds.ts';
import { bundledPackages, REQUIRE_BANNER } from '../support/bundled-packages.ts';

/** Builds older than this, unused since, are removed (a run touches the build it uses). */
const STALE_MS = 60 * 60_000;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'smoke-artifacts']);
const HASHED = /\.(ts|mts|js|mjs|cjs|json)$/;
/**
 * A module that imports a path it computes (`import(url)`) may import TypeScript, which plain node cannot load:
 * the test files that bundle one run through tsx. A template's `import(${…})` is text for another process.
 */
const COMPUTED_IMPORT = /\bimport\(\s*(?!\$\{)[\w$]/;
const NEEDS_TSX = 'needs-tsx.json';
/** What the bundles import for `uvu`: uvu itself, but a suite's before hook's error is printed, not dropped. */
const UVU_HOOK_ERRORS = fileURLToPath(new URL('uvu-hook-errors.ts', import.meta.url));

/** The bundles of `files`; undefined under TEST_TSX=1, or when they do not compile (tsx then reports each file). */
export async function compileTests(files: string[]): Promise<TestBundles | undefined> {
  if (process.env.TEST_TSX === '1') return undefined;
  const entries = [...new Set([...files, ...PRELOADS, BATCH])].sort();
  const cache = join(root, '.tmp', 'test-js');
  const dir = join(cache, treeHash(entries));
  try {
    if (existsSync(dir)) utimesSync(dir, new Date(), new Date());
    else await compileOnce(entries, dir);
  } catch (error) {
    const { message } = error as Error;
    console.log(`test/run.ts: esbuild did not compile the test files, so they run with tsx:\n${message}`);
    return undefined;
  }
  removeStaleBuilds(cache, STALE_MS);
  const withTsx = new Set(JSON.parse(readFileSync(join(dir, NEEDS_TSX), 'utf8')) as string[]);
  return { dir, of: (file) => (withTsx.has(file) ? undefined : join(dir, file.replace(/\.ts$/, '.js'))) };
}

async function compileOnce(entries: string[], dir: string): Promise<void> {
  const staging = `${dir}.${process.pid}.partial`;
  rmSync(staging, { recursive: true, force: true });
  try {
    const withTsx = await compileWithout(entries, staging);
    writeFileSync(join(staging, NEEDS_TSX), JSON.stringify(withTsx));
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  try {
    renameSync(staging, dir);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another runner built the same files at the same time
  }
}

/** Compiles the entries into `out`, but for those that do not compile: the entries to run with tsx. */
async function compileWithout(entries: string[], out: string): Promise<string[]> {
  try {
    return needingTsx(await bundle(entries, out), out);
  } catch (error) {
    const broken = brokenEntries(error, entries);
    rmSync(out, { recursive: true, force: true });
    const metafile = await bundle(
      entries.filter((file) => !broken.includes(file)),
      out,
    );
    return [...broken, ...needingTsx(metafile, out)];
  }
}

async function bundle(entries: string[], out: string): Promise<Metafile> {
  const { metafile } = await build({
    entryPoints: entries.map((file) => join(root, file)),
    ...{ bundle: true, splitting: true, platform: 'node', format: 'esm', target: 'node20' },
    banner: { js: REQUIRE_BANNER },
    ...{
      absWorkingDir: root,
      outbase: root,
      outdir: out,
      entryNames: '[dir]/[name]',
      chunkNames: 'chunks/[name]-[hash]',
    },
    ...{ sourcemap: 'linked', sourcesContent: false, metafile: true, logLevel: 'silent' },
    plugins: [sourceAddressed(), uvuWithHookErrors(), bundledPackages()],
  });
  return metafile;
}

function uvuWithHookErrors(): Plugin {
  return {
    name: 'uvu-hook-errors',
    setup(plugin) {
      plugin.onResolve({ filter: /^uvu$/ }, ({ importer }) =>
        importer === UVU_HOOK_ERRORS ? undefined : { path: UVU_HOOK_ERRORS },
      );
    },
  };
}

/**
 * The test files that do not compile themselves: they run with tsx, which fails each with esbuild's message. An
 * error elsewhere (a module they share, the runner's own files) is thrown: then every file runs with tsx.
 */
function brokenEntries(error: unknown, entries: string[]): string[] {
  const files = ((error as BuildFailure).errors ?? []).map((message) => message.location?.file ?? '');
  const ownFile = (file: string) => entries.includes(file) && !PRELOADS.includes(file) && file !== BATCH;
  if (files.length === 0 || !files.every(ownFile)) throw error;
  return [...new Set(files)];
}

/** The entries (as paths from the root) whose bundle, with the chunks it loads, holds a computed import. */
function needingTsx(metafile: Metafile, out: string): string[] {
  const computed = (input: string) =>
    !input.startsWith('node_modules/') && COMPUTED_IMPORT.test(readFileSync(join(root, input), 'utf8'));
  const inputsOf = (output: string, seen = new Set<string>()): string[] => {
    if (seen.has(output)) return [];
    seen.add(output);
    const { inputs, imports } = metafile.outputs[output]!;
    const chunks = imports.filter((i) => !i.external).map((i) => i.path);
    return [...Object.keys(inputs), ...chunks.flatMap((chunk) => inputsOf(chunk, seen))];
  };
  const prefix = `${relative(root, out)}/`;
  return Object.entries(metafile.outputs)
    .filter(([output, { entryPoint }]) => entryPoint && entryPoint !== BATCH && output.endsWith('.js'))
    .filter(([output]) => inputsOf(output).some(computed))
    .map(([output]) => output.slice(prefix.length).replace(/\.js$/, '.ts'));
}

/** A hash of the entries, of every source file they may bundle, and of how they are compiled. */
function treeHash(entries: string[]): string {
  const hash = createHash('sha256').update(entries.join('\0'));
  for (const own of ['compile-tests.ts', 'source-addressed.ts'])
    hash.update(readFileSync(fileURLToPath(new URL(own, import.meta.url))));
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (entry.name.startsWith('.') || SKIP_DIRS.has(entry.name)) continue;
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else if (HASHED.test(entry.name)) hash.update(`${path}\0`).update(readFileSync(join(root, path)));
    }
  };
  walk('');
  return hash.digest('hex').slice(0, 16);
}
