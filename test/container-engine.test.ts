// scripts/container-engine.sh on bad input: one line naming the problem, exit 1, nothing on stdout for `eval`,
// and no daemon started; with an engine running: every clone reuses it, and the last clone's --stop stops it.
// Fakes on PATH stand in for docker, dockerd, curl, id and sudo; the machine-wide directory and the os-release
// file are the test's own (CONTAINER_ENGINE_DIR, CONTAINER_ENGINE_OS_RELEASE).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './support/deadline.ts';
import { spawnProcess, stopAll, type Spawned } from './support/spawn-process.ts';
import { root as rootWithSlash } from './support/spawn-service.ts';

const test = suite('container-engine.sh');
const root = rootWithSlash.replace(/\/$/, '');
const dir = mkdtempSync(join(tmpdir(), 'container-engine-test-'));
const bin = join(dir, 'bin');
const work = join(dir, 'work');
const debian = join(dir, 'os-release-debian');
const SCRIPT_LIMIT_MS = 60_000;
/** What compose says when the Engine is older than 25, quoted in the script's refusals. */
const COMPOSE_REFUSAL =
  "compose refuses it: can't set healthcheck.start_interval as feature require Docker Engine v25 or later";
writeFileSync(debian, 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n');

const SCRIPT = readFileSync(join(root, 'scripts/container-engine.sh'), 'utf8');
/** A function of the script, as written there. */
const scriptFunction = (name: string) => {
  const fn = new RegExp(`^${name}\\(\\) \\{\\n[\\s\\S]*?\\n\\}$`, 'm').exec(SCRIPT)?.[0];
  assert.ok(fn, `scripts/container-engine.sh defines ${name}() { … }`);
  return fn!;
};
/** The label the script expects on a current node-local image, computed by the script's own node_recipe. */
function nodeRecipe(): string {
  const run = spawnSync(
    'bash',
    [
      '-c',
      [
        'root=$1',
        'node_overlay=$root/test/containers/images/node-local',
        scriptFunction('build_node_image'),
        scriptFunction('node_recipe'),
        'node_recipe',
      ].join('\n'),
      'bash',
      root,
    ],
    { encoding: 'utf8' },
  );
  assert.is(run.status, 0, run.stderr);
  return run.stdout.trim();
}
let socketServer: Server | undefined;

function fake(name: string, script: string) {
  writeFileSync(join(bin, name), `#!/bin/sh\n${script}\n`);
  chmodSync(join(bin, name), 0o755);
}

/** Starts the script (of the clone at `clone`) with the fakes first on PATH; no Engine answers on DOCKER_HOST
 * unless a fake says so. */
function startScript(env: Record<string, string> = {}, args: string[] = [], clone = root) {
  return spawnProcess('bash', [join(clone, 'scripts/container-engine.sh'), ...args], {
    cwd: clone,
    env: {
      ...process.env,
      PATH: `${bin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
      DOCKER_HOST: `unix://${join(dir, 'nothing-listens.sock')}`,
      CONTAINER_ENGINE_DIR: work,
      CONTAINER_ENGINE_OS_RELEASE: debian,
      ...env,
    },
  });
}

async function finished(proc: Spawned) {
  const code = await proc.waitExit(SCRIPT_LIMIT_MS);
  return { code, stdout: proc.stdout.filter(Boolean), stderr: proc.stderr.filter(Boolean) };
}

const engineScript = (env: Record<string, string> = {}, args: string[] = [], clone = root) =>
  finished(startScript(env, args, clone));

test.before.each(() => {
  rmSync(bin, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
  mkdirSync(bin, { recursive: true });
  // A docker client with no Engine behind it, and a current dockerd: the machine this script is for.
  fake('docker', 'echo "Cannot connect to the Docker daemon" >&2; exit 1');
  fake('dockerd', '[ "$1" = --version ] && echo "Docker version 26.1.5+dfsg1, build a72d7cd"; exit 0');
  fake('curl', 'exit 7'); // Docker Hub unreachable, as on this project's machines
});
test.after.each(async () => {
  await stopAll();
  await new Promise((resolve) => socketServer?.close(resolve) ?? resolve(undefined));
  socketServer = undefined;
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

const noDaemon = () =>
  assert.not.ok(
    existsSync(join(work, 'dockerd.pid')) || (existsSync(work) && readdirSync(work).includes('docker.sock')),
    'no daemon started',
  );

test('not Debian: one line naming the system, exit 1', async () => {
  const other = join(dir, 'os-release-other');
  writeFileSync(other, 'NAME="Fedora Linux"\nID=fedora\n');
  const run = await engineScript({ CONTAINER_ENGINE_OS_RELEASE: other });
  assert.is(run.code, 1);
  assert.equal(run.stdout, []);
  assert.equal(run.stderr, [
    `container-engine: this is not Debian (${other} says ID=fedora); ` +
      'install Docker Engine 25 or later with docker compose yourself',
  ]);
  noDaemon();
});

test('no root and no sudo: one line, exit 1', async () => {
  fake('id', 'case "$1" in -u) echo 1000;; -un) echo tester;; *) echo 1000;; esac');
  fake('sudo', 'echo "sudo: a password is required" >&2; exit 1');
  const run = await engineScript();
  assert.is(run.code, 1);
  assert.equal(run.stdout, []);
  assert.equal(run.stderr, [
    'container-engine: needs root or password-less sudo to run dockerd (neither is available to tester)',
  ]);
  noDaemon();
});

test('an Engine older than 25 answers: refused with the compose message, exit 1', async () => {
  fake('docker', '[ "$1 $2 $3" = "version --format {{.Server.Version}}" ] && { echo 20.10.24+dfsg1; exit 0; }; exit 1');
  const run = await engineScript();
  assert.is(run.code, 1);
  assert.equal(run.stdout, []);
  assert.is(run.stderr.length, 1, run.stderr.join('\n'));
  assert.is(
    run.stderr[0],
    'container-engine: the Docker Engine that answers is 20.10.24+dfsg1; ' +
      `compose.yaml needs Engine 25 or later (${COMPOSE_REFUSAL})`,
  );
});

test('a dockerd older than 25 on PATH: refused, exit 1', async () => {
  fake('dockerd', '[ "$1" = --version ] && echo "Docker version 20.10.24+dfsg1, build 297e128"; exit 0');
  const run = await engineScript();
  assert.is(run.code, 1);
  assert.equal(run.stdout, []);
  assert.equal(run.stderr, [
    `container-engine: ${join(bin, 'dockerd')} is Engine 20.10.24, older than 25 (${COMPOSE_REFUSAL}); ` +
      'remove it from PATH or start an Engine >= 25',
  ]);
  noDaemon();
});

test("Debian's archive unreachable: one line naming the mirror, exit 1, no daemon", async () => {
  // A port that refuses: bound, then closed.
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
  const mirror = `http://127.0.0.1:${port}/debian`;
  const run = await engineScript({ DEBIAN_MIRROR: mirror });
  assert.is(run.code, 1);
  assert.equal(run.stdout, []);
  assert.is(run.stderr.length, 1, run.stderr.join('\n'));
  assert.match(
    run.stderr[0]!,
    new RegExp(`^container-engine: Debian's archive at ${mirror.replace(/[.]/g, '\\.')} is unreachable \\(.+\\)$`),
  );
  noDaemon();
});

/** A docker client whose Engine 27.3.1 answers wherever it points, with compose and the local images. */
const externalDocker = () =>
  fake(
    'docker',
    '[ "$1 $2 $3" = "version --format {{.Server.Version}}" ] && { echo 27.3.1; exit 0; }; ' +
      '[ "$1 $2" = "compose version" ] && exit 0; ' +
      `[ "$1 $2" = "image inspect" ] && { echo ${nodeRecipe()}; exit 0; }; [ "$1" = build ] && exit 0; exit 1`,
  );

test('an Engine >= 25 that answers, Docker Hub reachable: nothing done, exit 0, DOCKER_HOST passed on', async () => {
  externalDocker();
  fake('curl', 'exit 0');
  const run = await engineScript({ DOCKER_HOST: 'unix:///run/user/1000/docker.sock' });
  assert.is(run.code, 0, run.stderr.join('\n'));
  assert.equal(run.stdout, ['export DOCKER_HOST=unix:///run/user/1000/docker.sock']);
  assert.equal(run.stderr, ['container-engine: using the Docker Engine 27.3.1 that already answers']);
  assert.not.ok(existsSync(work), 'nothing provisioned');
});

test('an Engine >= 25 that answers, Docker Hub unreachable: NODE_IMAGE and MONGO_IMAGE exported too', async () => {
  externalDocker();
  const run = await engineScript({ DOCKER_HOST: 'unix:///run/user/1000/docker.sock' });
  assert.is(run.code, 0, run.stderr.join('\n'));
  assert.equal(run.stdout, [
    'export DOCKER_HOST=unix:///run/user/1000/docker.sock',
    'export NODE_IMAGE=service-health-kit/node-local:24-slim',
    'export MONGO_IMAGE=service-health-kit/mongo-standin:local',
  ]);
  assert.equal(run.stderr, [
    'container-engine: using the Docker Engine 27.3.1 that already answers',
    'container-engine: Docker Hub is unreachable: NODE_IMAGE and MONGO_IMAGE name the local images',
  ]);
  assert.not.ok(existsSync(join(work, 'root')), 'no packages fetched');
  noDaemon();
});

test('an unknown argument: usage in one line, exit 1', async () => {
  const run = await engineScript({}, ['--start']);
  assert.is(run.code, 1);
  assert.equal(run.stderr, [
    'container-engine: unknown argument "--start" (usage: bash scripts/container-engine.sh [--stop [--force]])',
  ]);
});

// --- one engine for every clone on the machine --------------------------------------------------------------

const socket = join(work, 'docker.sock');
const pidfile = join(work, 'dockerd.pid');
const tree = join(work, 'root');
/** The exports every clone gets from the running engine. */
const EXPORTS = [
  `export DOCKER_HOST=unix://${socket}`,
  `export DOCKER_CONFIG=${join(work, 'config')}`,
  `export PATH=${tree}/usr/bin:${tree}/usr/sbin:${bin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
  'export NODE_IMAGE=service-health-kit/node-local:24-slim',
  'export MONGO_IMAGE=service-health-kit/mongo-standin:local',
];

/**
 * The machine-wide engine as a first clone left it: the unpacked packages (whose dockerd only records that it was
 * started), a live "dockerd" holding the pid file, its socket, and a docker client that reaches it only through
 * that socket and runs compose only with the plugin under DOCKER_CONFIG.
 */
async function runningEngine(): Promise<Spawned> {
  installedPackages();
  socketServer = createServer();
  await new Promise<void>((resolve) => socketServer!.listen(socket, resolve));
  // stop_dockerd stops only a process whose command line names the pid file, as dockerd's does.
  const daemon = spawnProcess(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)', '--', '--pidfile', pidfile]);
  writeFileSync(pidfile, `${daemon.pid}\n`);
  return daemon;
}

/** The packages as unpacked, their plugins, and the fakes that reach the engine only through its socket. */
function installedPackages() {
  const packages = /^PACKAGES=\(([^)]*)\)/m.exec(SCRIPT)?.[1]?.split(/\s+/).filter(Boolean);
  assert.ok(packages, 'the script lists its PACKAGES');
  for (const dir of ['usr/sbin', 'usr/bin', 'usr/libexec/docker/cli-plugins'])
    mkdirSync(join(tree, dir), { recursive: true });
  writeFileSync(join(tree, '.packages'), packages!.join('\n') + '\n');
  writeFileSync(join(tree, 'usr/sbin/dockerd'), `#!/bin/sh\ntouch ${join(dir, 'second-dockerd-started')}\nexit 1\n`);
  for (const plugin of ['docker-compose', 'docker-buildx'])
    writeFileSync(join(tree, 'usr/libexec/docker/cli-plugins', plugin), '');
  chmodSync(join(tree, 'usr/sbin/dockerd'), 0o755);
  fake('id', 'case "$1" in -u|-g) echo 0;; -un) echo root;; *) echo "uid=0(root)";; esac');
  fake(
    'docker',
    `[ "$1 $2 $3" = "version --format {{.Server.Version}}" ] && [ "$DOCKER_HOST" = "unix://${socket}" ] && ` +
      `[ -S "${socket}" ] && { echo 26.1.5; exit 0; }; ` +
      '[ "$1 $2" = "compose version" ] && [ -e "$DOCKER_CONFIG/cli-plugins/docker-compose" ] && exit 0; ' +
      `[ "$1 $2" = "image inspect" ] && { echo ${nodeRecipe()}; exit 0; }; [ "$1" = build ] && exit 0; exit 1`,
  );
}

/** A second clone of the project: its own copy of the script, the rest shared with this one. */
function secondClone(): string {
  const clone = join(dir, 'clone2');
  rmSync(clone, { recursive: true, force: true });
  mkdirSync(join(clone, 'scripts'), { recursive: true });
  copyFileSync(join(root, 'scripts/container-engine.sh'), join(clone, 'scripts/container-engine.sh'));
  for (const name of ['dev', 'lib', 'node_modules', 'test', 'tools']) symlinkSync(join(root, name), join(clone, name));
  return clone;
}

const alive = (daemon: Spawned) => daemon.child.exitCode === null && daemon.child.signalCode === null;

test('a second clone reuses the running engine (also from a shell pointed at it), with the same exports', async () => {
  const daemon = await runningEngine();
  const clone = secondClone();
  const first = await engineScript();
  assert.is(first.code, 0, first.stderr.join('\n'));
  assert.equal(first.stdout, EXPORTS);
  // The shell: DOCKER_HOST on the first clone's engine, DOCKER_CONFIG without the compose plugin.
  const second = await engineScript(
    { DOCKER_HOST: `unix://${socket}`, DOCKER_CONFIG: join(dir, 'nowhere') },
    [],
    clone,
  );
  assert.is(second.code, 0, second.stderr.join('\n'));
  assert.equal(second.stdout, EXPORTS);
  assert.equal(second.stderr, [
    `container-engine: the dockerd under ${work} is already running; this clone uses it`,
    'container-engine: Docker Hub is unreachable: NODE_IMAGE and MONGO_IMAGE name the local images',
  ]);
  assert.not.ok(existsSync(join(dir, 'second-dockerd-started')), 'no second dockerd');
  assert.ok(alive(daemon));
  const registered = readdirSync(join(work, 'clients')).map((f) => readFileSync(join(work, 'clients', f), 'utf8'));
  assert.equal(registered.sort(), [`${clone}\n`, `${root}\n`].sort());
});

test("--stop from one clone leaves the engine to the other; the last clone's --stop stops it", async () => {
  const daemon = await runningEngine();
  const clone = secondClone();
  for (const from of [root, clone]) assert.is((await engineScript({}, [], from)).code, 0);
  const first = await engineScript({}, ['--stop']);
  assert.is(first.code, 0);
  assert.equal(first.stderr, [
    `container-engine: left the dockerd under ${work} running: still used by ${clone} ` +
      "(each one's --stop releases it, the last one stops it; --stop --force stops it now)",
  ]);
  assert.ok(alive(daemon), 'still running for the second clone');
  const last = await engineScript({}, ['--stop'], clone);
  assert.is(last.code, 0);
  assert.equal(last.stderr, [`container-engine: stopped the dockerd under ${work}`]);
  await daemon.waitExit(SCRIPT_LIMIT_MS);
  assert.not.ok(existsSync(pidfile), 'pid file removed');
});

test('--stop --force stops the engine another clone still uses, and says which', async () => {
  const daemon = await runningEngine();
  const clone = secondClone();
  assert.is((await engineScript({}, [], clone)).code, 0);
  const run = await engineScript({}, ['--stop', '--force']);
  assert.is(run.code, 0);
  assert.equal(run.stderr, [`container-engine: stopped the dockerd under ${work} (still registered: ${clone})`]);
  await daemon.waitExit(SCRIPT_LIMIT_MS);
});

test('a clone deleted since it registered does not keep the engine running', async () => {
  const daemon = await runningEngine();
  const clone = secondClone();
  assert.is((await engineScript({}, [], clone)).code, 0);
  rmSync(clone, { recursive: true });
  const run = await engineScript({}, ['--stop']);
  assert.equal(run.stderr, [`container-engine: stopped the dockerd under ${work}`]);
  await daemon.waitExit(SCRIPT_LIMIT_MS);
});

test('a dockerd the script starts does not inherit the lock: the next clone goes straight on', async () => {
  installedPackages();
  // This dockerd runs like the real one: it writes its pid file and listens on its socket until stopped.
  const daemonJs = join(dir, 'fake-dockerd.mjs');
  writeFileSync(
    daemonJs,
    "import { createServer } from 'node:net'; import { writeFileSync } from 'node:fs';\n" +
      'const arg = (name) => process.argv[process.argv.indexOf(name) + 1];\n' +
      "const pidfile = arg('--pidfile');\n" +
      "createServer().listen(arg('-H').replace('unix://', ''), () => writeFileSync(pidfile, `${process.pid}`));\n",
  );
  writeFileSync(join(tree, 'usr/sbin/dockerd'), `#!/bin/sh\nexec ${process.execPath} ${daemonJs} "$@"\n`);
  const first = await engineScript();
  assert.is(first.code, 0, first.stderr.join('\n'));
  assert.equal(first.stdout, EXPORTS);
  assert.match(first.stderr[0]!, /^container-engine: starting dockerd \(socket /);
  const pid = Number(readFileSync(pidfile, 'utf8'));
  try {
    assert.is(spawnSync('flock', ['-n', join(work, 'lock'), 'true']).status, 0, 'the lock is free once the run ended');
    const second = await engineScript({}, [], secondClone());
    assert.is(second.code, 0, second.stderr.join('\n'));
    assert.not.ok(
      second.stderr.some((line) => line.includes('waiting for')),
      second.stderr.join('\n'),
    );
    const stop = await engineScript({}, ['--stop', '--force']);
    assert.is(stop.code, 0, stop.stderr.join('\n'));
    await waitFor(() => spawnSync('kill', ['-0', String(pid)]).status !== 0, { timeout: 10_000, what: 'dockerd gone' });
  } finally {
    spawnSync('kill', ['-KILL', String(pid)]);
  }
});

test('a clone waits while another holds the lock, saying who, then reuses the engine', async () => {
  await runningEngine();
  writeFileSync(join(work, 'lock.holder'), 'pid 4242, /srv/other-clone\n');
  const holder = spawnProcess('flock', [join(work, 'lock'), 'sleep', '600']);
  const held = () => spawnSync('flock', ['-n', join(work, 'lock'), 'true']).status !== 0;
  await waitFor(held, { timeout: 10_000, what: 'the lock held' });
  const waiting = startScript();
  await waitFor(() => waiting.stderr.length > 0, { timeout: 10_000, what: 'the script says it waits' });
  assert.equal(waiting.stderr, [
    `container-engine: waiting for ${join(work, 'lock')}: another clone is setting up or stopping the engine ` +
      '(pid 4242, /srv/other-clone)',
  ]);
  assert.is(waiting.child.exitCode, null, 'still waiting');
  await holder.stop();
  const run = await finished(waiting);
  assert.is(run.code, 0, run.stderr.join('\n'));
  assert.equal(run.stdout, EXPORTS);
});

test.run();
