// The kit's manifest from its compiled imports: what it depends on, and the build refused on an undeclared one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kitManifest, packageOf, UndeclaredImportError, type RepositoryManifest } from './package-manifest.ts';

const repository: RepositoryManifest = {
  name: 'service-health-kit',
  version: '1.2.3',
  engines: { node: '>=20.19' },
  dependencies: { hono: '^4.0.0', mongodb: '^7.0.0', serialport: '^13.0.0', '@scope/x': '^1.0.0' },
  optionalDependencies: { 'puppeteer-core': '^24.0.0' },
};

test('packageOf: the package a specifier names; none for paths and builtins', () => {
  assert.equal(
    ['hono', 'hono/utils/mime', '@scope/x/deep', './a.js', '../b.js', 'node:fs', 'fs', '/abs.js'].map(packageOf),
    ['hono', 'hono', '@scope/x', undefined, undefined, undefined, undefined, undefined],
  );
});

test('the manifest depends on what the files import, optional where the repository says so, nothing else', () => {
  const manifest = kitManifest(repository, ['./readiness.js', 'node:http', 'hono', 'hono/factory', 'puppeteer-core']);
  assert.equal(manifest.dependencies, { hono: '^4.0.0' });
  assert.equal(manifest.optionalDependencies, { 'puppeteer-core': '^24.0.0' });
  assert.equal(
    [manifest.name, manifest.version, manifest.bin],
    ['service-health-kit', '1.2.3', { 'service-health-kit': 'smoke/cli.js' }],
  );
  assert.equal(manifest.engines, { node: '>=20.19' });
  assert.is(kitManifest(repository, ['hono']).optionalDependencies, undefined);
});

test('an import the repository does not declare fails the build, naming the package', () => {
  try {
    kitManifest(repository, ['hono', 'left-pad/x']);
    assert.unreachable('kitManifest accepted an undeclared import');
  } catch (error) {
    assert.instance(error, UndeclaredImportError);
    assert.is((error as UndeclaredImportError).code, 'UNDECLARED_IMPORT');
    assert.ok((error as Error).message.includes('left-pad'), (error as Error).message);
  }
});

test.run();
