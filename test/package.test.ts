// The package as a user gets it: `npm run pack:package`, then lib/README.md's commands run literally in an empty
// directory holding the tarball (installing what they name, unpinned, from the npm registry, as a user would), the
// oldest TypeScript the READMEs promise beside; the example type-checked there by both and run with plain node,
// its database started after it; the installed bin smoking it; the packed READMEs' links all inside the tarball.
// Slow (an install): one file, one pack and one install shared by every case; the oldest TypeScript installs in a
// folder of its own while the kit is packed, and the two compilers check the example at once.
// Its deadline is past its own steps' bounds (the README's commands 300 s, a pack 180 s), so that a step that hangs
// fails with its own message: on a busy machine the file took 60 to 222 s beside two CPU burners, and was killed at
// the 240 s default three times when more ran beside them.
// test-deadline: 600 s
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import ts from 'typescript';
import { delimiter, dirname, join } from 'node:path';
import { runCommand, type CommandResult } from '../tools/child-process.ts';
import { waitFor } from './support/deadline.ts';
import { cliEnv, runCli } from './support/run-smoke-cli.ts';
import { spawnProcess, stopAll, type Spawned } from './support/spawn-process.ts';
import { root } from './support/spawn-service.ts';
import { freePort } from '../tools/free-port.ts';
import { relativeLinks } from '../scripts/packed-links.ts';

const work = mkdtempSync(join(tmpdir(), 'package-test-'));
const project = join(work, 'project');
/** The oldest TypeScript's own folder, beside the project: its install need not wait for the tarball. */
const oldestDir = join(work, 'oldest');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// The bin starts with `#!/usr/bin/env node`: the node running this file (20 or 24) comes first on PATH.
const env = (extra: Record<string, string | undefined> = {}) =>
  cliEnv({
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
    npm_config_update_notifier: 'false',
    // npm's configuration, not the README's commands: the cache answers where it can, no audit or funding lines.
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    ...extra,
  });
/**
 * The oldest TypeScript lib/README.md and README.md promise: hono's declarations need 5.7 (generic Uint8Array), and
 * with the @types/node a fresh install brings (26.x), 5.7 and 5.8 fail in their own lib.dom.d.ts.
 */
const OLDEST_TYPESCRIPT = '5.9';
const show = (r: CommandResult) => `exit ${r.code}${r.timedOut ? ' (timed out)' : ''}\n${r.stdout}\n${r.stderr}`;

async function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<CommandResult> {
  const result = await runCommand(command, args, { cwd, env: env(), timeoutMs });
  assert.ok(!result.timedOut && !result.missing, `${command} ${args.join(' ')}: ${show(result)}`);
  return result;
}

/** A fenced block of lib/README.md's package section, the first in `language`. */
function readmeBlock(language: 'ts' | 'sh'): string {
  const readme = readFileSync(join(root, 'lib/README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## In your own Hono app'));
  const fence = { ts: /```ts\n([\s\S]*?)```/, sh: /```sh\n([\s\S]*?)```/ }[language];
  const block = fence.exec(section)?.[1];
  assert.ok(block, `lib/README.md's package section has a ${language} block`);
  return block!;
}

/** The example app in lib/README.md. */
function readmeExample(): string {
  const block = readmeBlock('ts');
  assert.ok(block.includes("from 'service-health-kit'"), 'lib/README.md has the example');
  return block;
}

interface Packed {
  filename: string;
  size: number;
  files: { path: string }[];
}

/** The oldest TypeScript in a package of its own; its tsc checks the project from there (with the project's types). */
async function installOldest(): Promise<CommandResult> {
  mkdirSync(oldestDir);
  // A package.json of its own, so npm installs here and not in some package.json above the temporary folder.
  writeFileSync(join(oldestDir, 'package.json'), '{ "private": true }\n');
  const spec = `typescript-oldest@npm:typescript@~${OLDEST_TYPESCRIPT}.0`;
  const oldest = await run(npm, ['install', '--save-dev', spec], oldestDir, 180_000);
  assert.is(oldest.code, 0, show(oldest));
  return oldest;
}

async function packAndInstall(): Promise<Packed> {
  const [packed, oldest] = await Promise.all([packAndRunReadme(), installOldest()]);
  installStderr += oldest.stderr;
  return packed;
}

async function packAndRunReadme(): Promise<Packed> {
  // build:package compiles the kit into dist/package with its own package.json; npm packs that folder into dist/.
  const pack = await run(npm, ['run', '--silent', 'pack:package', '--', '--json'], root, 180_000);
  assert.is(pack.code, 0, show(pack));
  const [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Packed[];
  // The README's first step: the tarball copied into the empty directory, then its commands as they are written.
  mkdirSync(project);
  renameSync(join(root, 'dist', packed!.filename), join(project, packed!.filename));
  const commands = readmeBlock('sh');
  assert.ok(commands.startsWith(`npm install ./${packed!.filename} `), `the README installs ${packed!.filename}`);
  const steps = await run('bash', ['-euo', 'pipefail', '-c', commands], project, 300_000);
  assert.is(steps.code, 0, show(steps));
  installStderr += steps.stderr;
  return packed!;
}

/** The installed bin, once it is known to be a node script (without its #! line, sh would run it as a script). */
function installedBin(): string {
  const bin = join(project, 'node_modules/.bin/service-health-kit');
  assert.is(readFileSync(bin, 'utf8').split('\n')[0], '#!/usr/bin/env node');
  return bin;
}

let installing: Promise<Packed> | undefined;
let installStderr = '';
const installed = () => (installing ??= packAndInstall());

let db: { port: number; clients: Set<Socket>; close(): void } | undefined;
let app: { url: string; proc: Spawned } | undefined;

/** The example's /api/ready: its status code and body. */
async function readyOf(url: string) {
  const response = await fetch(`${url}/api/ready`);
  return { status: response.status, body: (await response.json()) as { status: string; checks: object } };
}

/**
 * The example, compiled by its type-check, running on a free port; its database (a TCP server standing in) is
 * started only once the app answers 503 without it, as when a database comes up after the app.
 */
async function startApp() {
  if (app) return app;
  await installed();
  assert.ok(existsSync(join(project, 'app.js')), 'app.js, which the type-check case compiles, exists');
  const port = await freePort();
  const proc = spawnProcess(process.execPath, ['app.js'], {
    cwd: project,
    env: env({ PORT: '0', DB_HOST: '127.0.0.1', DB_PORT: String(port), NODE_ENV: 'production' }),
  });
  const line = await waitFor(() => proc.stdout.find((l) => l.startsWith('listening on ')), {
    timeout: 30_000,
    what: `the example app's "listening on" line (output: ${proc.lines.join(' | ')})`,
  });
  const url = `http://127.0.0.1:${new URL(line.slice('listening on '.length)).port}`;
  const without = await readyOf(url);
  assert.is(without.status, 503, 'not ready before its database listens');
  const clients = new Set<Socket>();
  const server = createServer((socket) => {
    clients.add(socket);
    socket.on('close', () => clients.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  db = { port, clients, close: () => (clients.forEach((c) => c.destroy()), server.close()) };
  await waitFor(async () => (await readyOf(url)).status === 200, {
    timeout: 10_000,
    what: 'the example ready once its database, started after it, listens',
  });
  return (app = { url, proc });
}

test.after(async () => {
  await stopAll();
  db?.close();
  rmSync(work, { recursive: true, force: true });
});

test('the tarball: the compiled kit, its bin, the READMEs; no sources, tests or tool declarations', async () => {
  const packed = await installed();
  const paths = packed.files.map((f) => f.path);
  for (const path of paths) {
    assert.ok(
      /^(lib\/[\w-]+\.(js|d\.ts)|(smoke|tools)\/[\w-]+\.js)$/.test(path) ||
        ['package.json', 'README.md', 'lib/README.md', 'smoke/README.md'].includes(path),
      `unexpected file in the tarball: ${path}`,
    );
  }
  for (const path of ['lib/index.js', 'lib/index.d.ts', 'smoke/cli.js']) {
    assert.ok(paths.includes(path), `${path} is in the tarball`);
  }
  // Each packed README links only to what the tarball holds (the rest of the repository is named as text).
  const readmes = paths.filter((path) => path.endsWith('README.md'));
  assert.equal(readmes.sort(), ['README.md', 'lib/README.md', 'smoke/README.md']);
  for (const readme of readmes) {
    const text = readFileSync(join(project, 'node_modules/service-health-kit', readme), 'utf8');
    const outside = relativeLinks(readme, text).filter((target) => !paths.includes(target));
    assert.equal(outside, [], `${readme} links to files the tarball lacks`);
    assert.ok(relativeLinks(readme, text).length > 0 || readme !== 'README.md', 'the front README keeps its links');
  }
  // npm installs optional dependencies by default: the smoke's browser driver came with the kit.
  assert.ok(existsSync(join(project, 'node_modules/puppeteer-core/package.json')), 'puppeteer-core installed');
  assert.ok(existsSync(join(project, 'node_modules/.bin/service-health-kit')), 'the bin is linked');
});

interface LockEntry {
  optional?: boolean;
  hasInstallScript?: boolean;
}

test('the kit installs alone: besides what the project asked for, hono and its optional browser driver', async () => {
  await installed();
  const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const entries = Object.entries(lock.packages).filter(([path]) => path !== '');
  // npm marks `optional` what only optional dependencies need: puppeteer-core and its tree, none of it required.
  const required = entries.filter(([, entry]) => !entry.optional).map(([path]) => path.slice('node_modules/'.length));
  assert.equal(
    required.sort(),
    [
      '@hono/node-server',
      '@types/node',
      'hono',
      'service-health-kit',
      'typescript',
      'undici-types', // @types/node's
    ],
    'the packages installed, not counting the optional browser driver',
  );
  assert.ok(lock.packages['node_modules/puppeteer-core']?.optional, 'puppeteer-core came, as an optional dependency');
  const services = ['mongodb', 'bson', 'serialport', 'pino', 'pino-pretty'];
  const names = entries.map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  assert.equal(
    names.filter((name) => services.includes(name) || name.startsWith('@serialport/')),
    [],
    "the services' dependencies",
  );
  assert.equal(
    entries.filter(([, entry]) => entry.hasInstallScript).map(([path]) => path),
    [],
    'packages with install scripts',
  );
  assert.not.match(installStderr, 'install-scripts', 'npm warned about install scripts');
  const kit = JSON.parse(readFileSync(join(project, 'node_modules/service-health-kit/package.json'), 'utf8')) as {
    dependencies?: object;
    optionalDependencies?: object;
  };
  assert.equal(Object.keys(kit.dependencies ?? {}), ['hono']);
  assert.equal(Object.keys(kit.optionalDependencies ?? {}), ['puppeteer-core']);
});

test('the installed declarations import .js paths, which every TypeScript resolves, never .ts', async () => {
  await installed();
  const lib = join(project, 'node_modules/service-health-kit/lib');
  const index = readFileSync(join(lib, 'index.d.ts'), 'utf8');
  const relative = ts.preProcessFile(index, true, true).importedFiles.map((f) => f.fileName);
  assert.ok(relative.includes('./readiness.js'), `index.d.ts imports ./readiness.js: ${relative.join(', ')}`);
  const declarations = readdirSync(lib).filter((name) => name.endsWith('.d.ts'));
  const tsImports = declarations.flatMap((name) =>
    ts
      .preProcessFile(readFileSync(join(lib, name), 'utf8'), true, true)
      .importedFiles.filter((f) => f.fileName.endsWith('.ts'))
      .map((f) => `${name}: ${f.fileName}`),
  );
  assert.equal(tsImports, []);
});

test("the README's example type-checks against the installed types, and a misuse of them does not", async () => {
  await installed();
  writeFileSync(join(project, 'app.ts'), readmeExample());
  writeFileSync(
    join(project, 'misuse.ts'),
    [
      "import { createHealthRoutes, createReadiness } from 'service-health-kit';",
      'const status: number = createReadiness().snapshot().status;',
      'createHealthRoutes({ readiness: createReadiness() });',
      'export { status };',
    ].join('\n'),
  );
  // The tsconfig.json is the README's (NodeNext, the Node types listed, strict; skipLibCheck off, the default).
  assert.ok(existsSync(join(project, 'tsconfig.json')), "the README's commands wrote tsconfig.json");
  // The compiler a fresh install brings checks both files and emits app.js, which the next cases run; the oldest
  // one the READMEs promise checks them too, skipLibCheck off, so that a type resolved as `any` would hide no misuse.
  // Both at once: each is a process of its own, and only the first writes.
  const compilers = { typescript: project, 'typescript-oldest': oldestDir };
  const checks = Object.entries(compilers).map(async ([compiler, dir]) => {
    const tsc = join(dir, 'node_modules', compiler, 'bin/tsc');
    const args = [tsc, '-p', '.', ...(compiler === 'typescript' ? [] : ['--noEmit'])];
    return [compiler, await run(process.execPath, args, project, 120_000)] as const;
  });
  for (const [compiler, tsc] of await Promise.all(checks)) {
    const errors = tsc.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
    assert.equal(
      errors.filter((line) => !line.startsWith('misuse.ts(')),
      [],
      `${compiler}: only misuse.ts has type errors:\n${tsc.stdout}`,
    );
    assert.equal(
      errors.map((line) => /^misuse\.ts\((\d+),/.exec(line)?.[1]),
      ['2', '3'],
      `${compiler}: the snapshot's status is a string union, environment is required:\n${tsc.stdout}`,
    );
  }
  const oldest = JSON.parse(readFileSync(join(oldestDir, 'node_modules/typescript-oldest/package.json'), 'utf8')) as {
    version: string;
  };
  assert.ok(oldest.version.startsWith(`${OLDEST_TYPESCRIPT}.`), `TypeScript ${oldest.version} installed`);
  for (const readme of ['README.md', 'lib/README.md']) {
    const text = readFileSync(join(root, readme), 'utf8');
    assert.ok(
      text.includes(`TypeScript ${OLDEST_TYPESCRIPT} or later`),
      `${readme} promises TypeScript ${OLDEST_TYPESCRIPT}`,
    );
  }
  assert.ok(existsSync(join(project, 'app.js')), 'app.js emitted');
});

test('the example runs with plain node, and the installed bin smokes it: smoke: PASS (3/3), exit 0', async () => {
  const { url } = await startApp();
  const smoke = await runCommand(
    installedBin(),
    ['--backend', url, '--frontend', `${url}/`, '--artifacts', join(work, 'artifacts'), '--timeout', '10000'],
    { cwd: project, env: env(), timeoutMs: 120_000 },
  );
  assert.is(smoke.code, 0, show(smoke));
  const lines = smoke.stdout.trimEnd().split('\n');
  assert.equal(
    lines.map((l) => l.replace(/ \(\d+ms\)/, ' (Nms)')),
    [
      '[HEALTH] backend ... PASS (Nms)',
      '[READY] backend ... PASS (Nms)',
      `[LOAD] frontend ... PASS (Nms) screenshot=${join(work, 'artifacts')}/frontend-ok.png`,
      'smoke: PASS (3/3)',
    ],
    show(smoke),
  );
  // Only a wait's notice (smoke/wait-notice.ts), which comes or not with the machine's speed, may be on stderr.
  assert.is(smoke.stderr.replace(/^smoke: waiting for .*\n/gm, ''), '');
  // `npx <package>` finds the installed bin, and its usage names that command.
  const help = await run('npx', ['service-health-kit', '--help'], project, 60_000);
  assert.is(help.code, 0, show(help));
  assert.ok(help.stdout.includes('\nUSAGE npx service-health-kit [OPTIONS]\n'), help.stdout);
});

test("the example's readiness is honest: database closed → 503, back → 200; SIGTERM → drained, exit 0", async () => {
  const { url, proc } = await startApp();
  assert.equal((await readyOf(url)).body.checks, { database: 'connected' });
  for (const client of db!.clients) client.destroy();
  const down = await waitFor(async () => ((await readyOf(url)).status === 503 ? readyOf(url) : undefined), {
    timeout: 10_000,
    what: '/api/ready to answer 503 once the database connection closed',
  });
  assert.equal([down.body.status, down.body.checks], ['not_ready', { database: 'disconnected' }]);
  // The check reconnects (a second later): the database still listens, so the app is ready again.
  const back = await waitFor(async () => ((await readyOf(url)).status === 200 ? readyOf(url) : undefined), {
    timeout: 10_000,
    what: '/api/ready to answer 200 once the check reconnected',
  });
  assert.equal(back.body.checks, { database: 'connected' });
  proc.signal('SIGTERM');
  assert.is(await proc.waitExit(15_000), 0, proc.lines.join('\n'));
  assert.ok(proc.stdout.includes('app: shutdown complete'), proc.lines.join('\n'));
});

test("the installed bin with no Chromium: exit 2 and the checkout's one line", async () => {
  await installed();
  const args = ['--backend', 'http://127.0.0.1:9', '--frontend', 'http://127.0.0.1:9/'];
  const noBrowser = { CHROME_PATH: join(work, 'no-chromium') };
  const bin = await runCommand(installedBin(), args, {
    cwd: project,
    env: env(noBrowser),
    timeoutMs: 60_000,
  });
  const checkout = await runCli(args, { env: noBrowser });
  const line =
    `smoke: CHROME_PATH=${noBrowser.CHROME_PATH} is not an executable file; ` +
    'install Chromium (apt-get install chromium) or set CHROME_PATH to a Chrome/Chromium executable';
  assert.equal([checkout.code, checkout.stdout, checkout.stderr], [2, [], [line]]);
  assert.equal([bin.code, bin.stdout, bin.stderr], [2, '', `${line}\n`], show(bin));
});

test('the installed bin without its optional puppeteer-core: exit 2 and one line saying how to get it', async () => {
  await installed();
  // As `npm install --omit=optional` leaves it: the kit's library and the bin's --help work, the smoke says why not.
  renameSync(join(project, 'node_modules/puppeteer-core'), join(work, 'puppeteer-core-set-aside'));
  // Any executable passes the browser lookup; the driver is missing before a browser is launched.
  const args = ['--backend', 'http://127.0.0.1:9', '--frontend', 'http://127.0.0.1:9/'];
  const options = { cwd: project, env: env({ CHROME_PATH: process.execPath }), timeoutMs: 60_000 };
  const smoke = await runCommand(installedBin(), args, options);
  const line =
    'smoke: puppeteer-core is not installed (an optional dependency, left out by --omit=optional): the LOAD probe ' +
    'drives Chromium through it; install it with npm install puppeteer-core\n';
  assert.equal([smoke.code, smoke.stdout, smoke.stderr], [2, '', line], show(smoke));
  const help = await runCommand(installedBin(), ['--help'], options);
  assert.is(help.code, 0, show(help));
});

test.run();
