// scripts/container-engine.sh builds the MongoDB stand-in image from a hand-written list of files. This runs that
// script's build_mongo_image (docker stubbed) into a scratch folder and checks the build context against the
// imports: every file the stand-in's two entry points import, transitively, and every package they need is
// there, and nothing else but the build's own files. No Docker needed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { importGraph } from './infra/import-graph.ts';
import { projectRoot as root } from '../tools/project-root.ts';

const SCRIPT = 'scripts/container-engine.sh';
const DOCKERFILE = 'test/containers/images/mongo-standin.Dockerfile';
/** Files of the build itself, not imported by anything: the Dockerfile and the package.json the script writes. */
const isBuildFile = (path: string) => path.endsWith('.Dockerfile') || path === 'package.json';

/** Runs the script's build_mongo_image with `docker` stubbed; returns the build context it filled, or why not. */
function buildContext(work: string): { context: string; error?: string } {
  const script = readFileSync(join(root, SCRIPT), 'utf8');
  const fn = /^build_mongo_image\(\) \{\n[\s\S]*?\n\}$/m.exec(script)?.[0];
  assert.ok(fn, `${SCRIPT} defines build_mongo_image() { … }`);
  const run = spawnSync(
    'bash',
    [
      '-c',
      [
        'set -u',
        'root=$1 work=$2 NODE_IMAGE_LOCAL=node MONGO_IMAGE_LOCAL=standin',
        'fail() { echo "$*" >&2; exit 1; }',
        'docker() { :; }',
        fn,
        'build_mongo_image',
      ].join('\n'),
      'bash',
      root.replace(/\/$/, ''),
      work,
    ],
    { encoding: 'utf8', timeout: 30_000 },
  );
  return {
    context: join(work, 'images', 'mongo-standin'),
    error: run.status === 0 ? undefined : `exit ${run.status}: ${run.stderr}`,
  };
}

/** The two programs the image runs, as paths in the build context, read from the Dockerfile so they cannot drift. */
function entries(): string[] {
  const dockerfile = readFileSync(join(root, DOCKERFILE), 'utf8');
  const workdir = /^WORKDIR (\S+)$/m.exec(dockerfile)?.[1];
  const server = /^CMD \["node", "([^"]+)"/m.exec(dockerfile)?.[1];
  const mongosh = new RegExp(`exec node ${workdir}/(\\S+\\.ts)`).exec(dockerfile)?.[1];
  assert.ok(workdir && server && mongosh, `${DOCKERFILE}: WORKDIR, CMD ["node", …] and the mongosh wrapper's script`);
  return [server!, mongosh!];
}

/** Every file below `dir`, relative to it, node_modules/ left out. */
function filesIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((path) => !path.startsWith('node_modules/'))
    .sort();
}

/** `names` and every package they depend on, read from the package.json files under `modules`. */
function withDependencies(modules: string, names: string[]): string[] {
  const needed = new Set<string>();
  const pending = [...names];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (needed.has(name)) continue;
    needed.add(name);
    const manifest = join(modules, name, 'package.json');
    if (existsSync(manifest))
      pending.push(...Object.keys(JSON.parse(readFileSync(manifest, 'utf8')).dependencies ?? {}));
  }
  return [...needed].sort();
}

test('the stand-in image context holds exactly what its two programs import, and the build files', () => {
  const work = mkdtempSync(join(tmpdir(), 'mongo-standin-image-'));
  try {
    const { context, error } = buildContext(work);
    assert.is(error, undefined, `build_mongo_image failed: ${error}`);
    const graphs = entries().map((entry) => importGraph(context, entry));
    const imported = [...new Set(graphs.flatMap((graph) => graph.files))].sort();
    assert.ok(imported.includes('dev/mongo-standin/server.ts'), `the imports were followed: ${imported.join(', ')}`);
    assert.equal(
      graphs.flatMap((graph) => graph.missing),
      [],
      `imported but not copied by ${SCRIPT}`,
    );
    assert.equal(
      filesIn(context).filter((path) => !imported.includes(path) && !isBuildFile(path)),
      [],
      `copied by ${SCRIPT} but imported by nothing`,
    );
    assert.ok(filesIn(context).includes(DOCKERFILE.split('/').pop()!), 'the Dockerfile is in the context');
    // The image holds what the Dockerfile copies out of the context, not the whole context: every folder the
    // programs import from must be copied too (tools/ was not, and the stand-in died at start in its container).
    const copiedDirs = [...readFileSync(join(root, DOCKERFILE), 'utf8').matchAll(/^COPY (\S+) \.\/\1$/gm)].map(
      (m) => m[1],
    );
    const importedDirs = [...new Set(imported.filter((path) => path.includes('/')).map((path) => path.split('/')[0]!))];
    assert.equal(
      importedDirs.filter((dir) => !copiedDirs.includes(dir)).sort(),
      [],
      `folders imported from but not copied by ${DOCKERFILE}`,
    );

    const packages = withDependencies(join(root, 'node_modules'), [
      ...new Set(graphs.flatMap((graph) => graph.packages)),
    ]);
    assert.ok(packages.includes('bson'), `the package imports were found: ${packages.join(', ')}`);
    const copied = existsSync(join(context, 'node_modules')) ? readdirSync(join(context, 'node_modules')).sort() : [];
    assert.equal(copied, packages, 'node_modules/ holds the imported packages and their dependencies, nothing else');
    for (const name of packages)
      assert.ok(existsSync(join(context, 'node_modules', name, 'package.json')), `node_modules/${name} is whole`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();
