// npm's allowScripts policy: every locked dependency with an install script is reviewed in package.json, so
// `npm ci` prints no "not yet covered by allowScripts" warning and keeps running the scripts the project needs
// when npm stops running unreviewed ones. The lock file is checked always; npm's own verdict where npm has it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './support/spawn-service.ts';

interface LockEntry {
  name?: string;
  version?: string;
  hasInstallScript?: boolean;
}
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** `name@version` of every locked package with an install script (node_modules/a/node_modules/b → b). */
const withScripts = Object.entries(lock.packages)
  .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
  .map(([path, entry]) => `${entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 13)}@${entry.version}`)
  .sort();
/** The package name of an allowScripts key: `name` or `name@range` (a scope's own @ aside). */
const nameOf = (key: string) => key.slice(0, key.indexOf('@', 1) > 0 ? key.indexOf('@', 1) : undefined);

test('every locked package with an install script has an allowScripts entry, and every entry is in use', () => {
  const allowed = pkg.allowScripts ?? {};
  assert.ok(withScripts.length > 0, 'the lock file marks install scripts (hasInstallScript)');
  const uncovered = withScripts.filter((id) => !Object.keys(allowed).some((key) => key === id || key === nameOf(id)));
  assert.equal(uncovered, [], 'install scripts not reviewed in package.json allowScripts');
  const lockedNames = withScripts.map(nameOf);
  assert.equal(
    Object.keys(allowed).filter((key) => !lockedNames.includes(nameOf(key))),
    [],
    'allowScripts entries that match no locked package with an install script',
  );
});

test('npm itself finds no unreviewed install script in the installed tree (npm 11.16 or later)', () => {
  const run = spawnSync('npm', ['install-scripts', 'ls'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  if (/Unknown command/i.test(run.stderr + run.stdout)) return; // an npm without the policy has nothing to warn
  assert.is(run.status, 0, run.stderr);
  assert.is(run.stdout.trim(), 'No packages with unreviewed install scripts.');
});

test.run();
