// The services, the smoke CLI, the trailer and the local stack as JavaScript, compiled once per source tree: a spawn
// then loads no TypeScript compiler, which cost 1.5 s (backend) to 3.8 s (frontend) of each service's start-up on a
// loaded machine and 0.6 s of CPU per smoke CLI run, and most packages come in the bundle (bundled-packages.ts).
// TEST_SPAWN_TSX=1 runs them through tsx.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { removeStaleBuilds } from './stale-builds.ts';
import { bundledPackages, REQUIRE_BANNER } from './bundled-packages.ts';

const SOURCES = ['backend', 'device', 'dev', 'frontend', 'lib', 'smoke', 'tools'];
const ENTRIES: Record<string, string> = {
  'backend/main': 'backend/main.ts',
  'backend/device-worker': 'backend/device-thread/device-worker.ts',
  'device/main': 'device/main.ts',
  'dev/stack': 'dev/stack.ts',
  'dev/mongo-standin': 'dev/mongo-standin.ts',
  'frontend/main': 'frontend/main.ts',
  'smoke/cli': 'smoke/cli.ts',
  'smoke/trailer': 'smoke/trailer.ts',
};
/**
 * Folders whose modules keep their source's address in `import.meta.url` once bundled: tools/project-root.ts then
 * finds this checkout (not the bundle's folder), and smoke/cli.ts names the command the bundle stands in for,
 * `npx tsx smoke/cli.ts` (a .js address would make it the installed package's `npx service-health-kit`).
 */
const SOURCE_ADDRESSED = ['smoke', 'tools'];
const WORKER_ENTRY = 'backend/device-thread/device-worker-entry.mjs';
/** Builds older than this, of trees since edited, are removed; a test still starting one is long over by then. */
const STALE_MS = 60 * 60_000;

let built: Promise<string> | undefined;

/**
 * The command-line arguments that run `entry` (e.g. `backend/main.ts`, `smoke/cli.ts`) under `process.execPath`,
 * from any working directory.
 */
export async function serviceArgs(root: string, entry: string): Promise<string[]> {
  const name = entry.replace(/\.ts$/, '');
  if (process.env.TEST_SPAWN_TSX === '1' || !(name in ENTRIES))
    return ['--import', import.meta.resolve('tsx'), join(root, entry)];
  built ??= compiled(root);
  return [join(await built, `${name}.js`)];
}

/**
 * The environment that makes the trailer and the local stack start their children (the smoke CLI, the stack, its
 * services) from this build too (tools/node-entry.ts); empty under TEST_SPAWN_TSX=1.
 */
export async function compiledEntriesEnv(root: string): Promise<Record<string, string>> {
  if (process.env.TEST_SPAWN_TSX === '1') return {};
  built ??= compiled(root);
  return { JS_ENTRIES_DIR: await built };
}

/** The build of the current tree, made by whichever test process gets there first (an atomic rename). */
async function compiled(root: string): Promise<string> {
  const cache = join(root, '.tmp', 'spawn-js');
  const dir = join(cache, treeHash(root));
  if (existsSync(dir)) {
    utimesSync(dir, new Date(), new Date()); // in use: not stale to a build of another tree
    return dir;
  }
  const staging = `${dir}.${process.pid}.partial`;
  rmSync(staging, { recursive: true, force: true });
  await compileInto(root, staging);
  try {
    renameSync(staging, dir);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another test file built the same tree at the same time
  }
  removeStaleBuilds(cache, STALE_MS);
  return dir;
}

async function compileInto(root: string, out: string): Promise<void> {
  const entryPoints = Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, join(root, file)]));
  // Split, so that what a dynamic import loads (puppeteer-core, for the smoke's browser) is a chunk read only then.
  const options = { bundle: true, splitting: true, platform: 'node', format: 'esm', target: 'node20' } as const;
  const plugins = [sourceAddressed(root), bundledPackages()];
  const output = { outdir: out, chunkNames: 'chunks/[name]-[hash]', banner: { js: REQUIRE_BANNER } };
  await build({ ...options, entryPoints, ...output, plugins, logLevel: 'silent' });
  // What the bundles find beside themselves through import.meta.url: the worker's entry (which loads the worker
  // by name, here its JavaScript) and the frontend's static files.
  const entry = readFileSync(join(root, WORKER_ENTRY), 'utf8');
  const loadsJs = entry.replace("'./device-worker.ts'", "'./device-worker.js'");
  if (loadsJs === entry)
    throw new Error(`${WORKER_ENTRY} no longer names './device-worker.ts': update test/support/compiled-services.ts`);
  writeFileSync(join(out, 'backend', 'device-worker-entry.mjs'), loadsJs);
  symlinkSync(join(root, 'frontend', 'public'), join(out, 'frontend', 'public'));
}

/** `import.meta.url` in the modules of SOURCE_ADDRESSED as the address of their source file. */
function sourceAddressed(root: string): Plugin {
  return {
    name: 'source-addressed',
    setup(plugin) {
      plugin.onLoad({ filter: /\.ts$/ }, (args) => {
        const [folder] = relative(root, args.path).split(sep);
        if (!SOURCE_ADDRESSED.includes(folder!)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        const address = JSON.stringify(pathToFileURL(args.path).href);
        return { contents: text.replaceAll('import.meta.url', address), loader: 'ts' };
      });
    },
  };
}

/**
 * A hash of every shipped source file compiled here, of the packages bundled with them (the lock file names their
 * versions) and of how they are compiled: an edit or an install makes a new build.
 */
function treeHash(root: string): string {
  const hash = createHash('sha256').update(readFileSync(fileURLToPath(import.meta.url)));
  hash.update(readFileSync(fileURLToPath(new URL('bundled-packages.ts', import.meta.url))));
  hash.update(readFileSync(join(root, 'package-lock.json')));
  for (const folder of SOURCES) {
    const files = readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.(ts|mjs)$/.test(file) && !file.endsWith('.test.ts') && !file.includes('node_modules'))
      .sort();
    for (const file of files) hash.update(`${folder}/${file}\0`).update(readFileSync(join(root, folder, file)));
  }
  return hash.digest('hex').slice(0, 16);
}
