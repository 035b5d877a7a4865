// Where code lives: the production folders hold only shipped code, and no shipped or tool code imports test support.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { importGraph } from './infra/import-graph.ts';
import { root } from './support/spawn-service.ts';

const PRODUCTION = ['backend', 'device', 'frontend', 'lib', 'smoke'];
/** Code that ships or that people run; bench/ measures with the test harness and is left out on purpose. */
const NOT_TESTS = [...PRODUCTION, 'dev'];
const ENTRIES = ['backend/main.ts', 'device/main.ts', 'frontend/main.ts', 'smoke/cli.ts', 'smoke/trailer.ts', 'healthcheck.ts'];

const isTest = (file: string) => /\.(test|fault|container)\.ts$/.test(file);

function sources(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((file) => !file.includes('node_modules') && !isTest(file));
}

test('no production or dev file imports from test/', () => {
  for (const folder of NOT_TESTS) {
    for (const file of sources(folder)) {
      const imported = importGraph(root, file).files.filter((name) => name.startsWith('test/'));
      assert.equal(imported, [], `${file} imports test support`);
    }
  }
});

test('every file in a production folder is reached from an entry point or dev tool, so none is test-only', () => {
  const reached = new Set([...ENTRIES, ...sources('dev')].flatMap((entry) => importGraph(root, entry).files));
  // The import graph follows what runs; a module of types only (`import type`) ships too, so count it as reached.
  for (const file of reached) {
    for (const [, specifier] of readFileSync(join(root, file), 'utf8').matchAll(/import type [^;]*? from '(\.[^']+)'/g)) {
      reached.add(relative(root, join(root, dirname(file), specifier!)));
    }
  }
  assert.ok(reached.has('lib/shutdown.ts'), 'the import graph was followed');
  const unreached = PRODUCTION.flatMap(sources).filter((file) => !reached.has(file));
  assert.equal(unreached, [], 'files only tests import');
});

test.run();
