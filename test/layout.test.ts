// Where code lives: the production folders hold only shipped code, and no shipped or tool code imports test support.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { importGraph } from './infra/import-graph.ts';
import { root } from './support/spawn-service.ts';

const PRODUCTION = ['backend', 'device', 'frontend', 'lib', 'smoke', 'tools'];
/** Top-level entries that hold no source of ours: installed packages, build output, local state, and test/ itself. */
const NOT_SOURCE = new Set(['node_modules', 'dist', 'smoke-artifacts', 'test']);
const ENTRIES = [
  'backend/main.ts',
  'backend/device-thread/device-worker.ts', // the device thread's module (device-thread.ts beside it starts it)
  'device/main.ts',
  'frontend/main.ts',
  'smoke/cli.ts', // also the package's bin, compiled
  'smoke/trailer.ts',
  'lib/index.ts', // the package's entry point (package.json "exports", compiled)
  'healthcheck.ts',
];

const isTest = (file: string) => /\.(test|fault|container)\.ts$/.test(file);

function sources(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((file) => !file.includes('node_modules') && !isTest(file));
}

/** Every non-test source file outside test/, in every folder of the tree (a new top-level folder included). */
function sourcesOutsideTest(): string[] {
  const entries = readdirSync(root, { withFileTypes: true }).filter(
    (e) => !NOT_SOURCE.has(e.name) && !e.name.startsWith('.'),
  );
  const topLevel = entries.filter((e) => e.isFile() && e.name.endsWith('.ts') && !isTest(e.name)).map((e) => e.name);
  return [...topLevel, ...entries.filter((e) => e.isDirectory()).flatMap((e) => sources(e.name))];
}

test('nothing outside test/ and the *.test.ts files imports from test/', () => {
  const checked = sourcesOutsideTest();
  assert.ok(checked.includes('healthcheck.ts') && checked.includes('dev/stack.ts'), 'the whole tree was listed');
  for (const file of checked) {
    const imported = importGraph(root, file).files.filter((name) => name.startsWith('test/'));
    assert.equal(imported, [], `${file} imports test support`);
  }
});

test('every file in a production folder is reached from an entry point or dev tool, so none is test-only', () => {
  const reached = new Set([...ENTRIES, ...sources('dev')].flatMap((entry) => importGraph(root, entry).files));
  // The import graph follows what runs; a module of types only (`import type`) ships too, so count it as reached.
  for (const file of reached) {
    for (const [, specifier] of readFileSync(join(root, file), 'utf8').matchAll(
      /import type [^;]*? from '(\.[^']+)'/g,
    )) {
      reached.add(relative(root, join(root, dirname(file), specifier!)));
    }
  }
  assert.ok(reached.has('lib/shutdown.ts'), 'the import graph was followed');
  const unreached = PRODUCTION.flatMap(sources).filter((file) => !reached.has(file));
  assert.equal(unreached, [], 'files only tests import');
});

// Prettier (printWidth 120) wraps code but not strings, comments or names: this holds those to the width too.
// package.json is left out: npm's description and scripts are one-line strings JSON cannot wrap.
test('no line of code or configuration is over 120 characters', () => {
  const listed = execFileSync('git', ['ls-files', '-z', '--', '*.ts', '*.js', '*.json', '*.yaml', '*.yml'], {
    cwd: root,
    encoding: 'utf8',
  });
  const files = listed.split('\0').filter((file) => file && file !== 'package-lock.json' && file !== 'package.json');
  assert.ok(files.includes('test/layout.test.ts'), 'the tracked files were listed');
  const long = files.flatMap((file) =>
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => ([...line].length > 120 ? [`${file}:${i + 1} (${[...line].length})`] : [])),
  );
  assert.equal(long, [], `${long.length} lines over 120 characters`);
});

test.run();
