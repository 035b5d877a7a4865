// scripts/container-engine.sh on bad input: one line naming the problem, exit 1, nothing on stdout for `eval`,
// and no daemon started. Fakes on PATH stand in for docker, dockerd, id and sudo; the work directory and the
// os-release file are the test's own (CONTAINER_ENGINE_DIR, CONTAINER_ENGINE_OS_RELEASE).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnProcess, stopAll } from './support/spawn-process.ts';
import { root } from './support/spawn-service.ts';

const test = suite('container-engine.sh');
const dir = mkdtempSync(join(tmpdir(), 'container-engine-test-'));
const bin = join(dir, 'bin');
const work = join(dir, 'work');
const debian = join(dir, 'os-release-debian');
const SCRIPT_LIMIT_MS = 60_000;
/** What compose says when the Engine is older than 25, quoted in the script's refusals. */
const COMPOSE_REFUSAL =
  "compose refuses it: can't set healthcheck.start_interval as feature require Docker Engine v25 or later";
writeFileSync(debian, 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n');

function fake(name: string, script: string) {
  writeFileSync(join(bin, name), `#!/bin/sh\n${script}\n`);
  chmodSync(join(bin, name), 0o755);
}

/** Runs the script with the fakes first on PATH; no Engine answers on DOCKER_HOST unless a fake says so. */
async function engineScript(env: Record<string, string> = {}, args: string[] = []) {
  const proc = spawnProcess('bash', [join(root, 'scripts/container-engine.sh'), ...args], {
    cwd: root,
    env: {
      ...process.env,
      PATH: `${bin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
      DOCKER_HOST: `unix://${join(dir, 'nothing-listens.sock')}`,
      CONTAINER_ENGINE_DIR: work,
      CONTAINER_ENGINE_OS_RELEASE: debian,
      ...env,
    },
  });
  const code = await proc.waitExit(SCRIPT_LIMIT_MS);
  return { code, stdout: proc.stdout.filter(Boolean), stderr: proc.stderr.filter(Boolean) };
}

test.before.each(() => {
  rmSync(bin, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
  mkdirSync(bin, { recursive: true });
  // A docker client with no Engine behind it, and a current dockerd: the machine this script is for.
  fake('docker', 'echo "Cannot connect to the Docker daemon" >&2; exit 1');
  fake('dockerd', '[ "$1" = --version ] && echo "Docker version 26.1.5+dfsg1, build a72d7cd"; exit 0');
});
test.after.each(() => stopAll());
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

test('an Engine >= 25 that answers with compose: nothing done, exit 0, DOCKER_HOST passed on', async () => {
  fake(
    'docker',
    '[ "$1 $2 $3" = "version --format {{.Server.Version}}" ] && { echo 27.3.1; exit 0; }; ' +
      '[ "$1 $2" = "compose version" ] && exit 0; exit 1',
  );
  const run = await engineScript({ DOCKER_HOST: 'unix:///run/user/1000/docker.sock' });
  assert.is(run.code, 0, run.stderr.join('\n'));
  assert.equal(run.stdout, ['export DOCKER_HOST=unix:///run/user/1000/docker.sock']);
  assert.equal(run.stderr, ['container-engine: using the Docker Engine 27.3.1 that already answers; nothing to do']);
  assert.not.ok(existsSync(work), 'nothing provisioned');
});

test('an unknown argument: usage in one line, exit 1', async () => {
  const run = await engineScript({}, ['--start']);
  assert.is(run.code, 1);
  assert.equal(run.stderr, [
    'container-engine: unknown argument "--start" (usage: bash scripts/container-engine.sh [--stop])',
  ]);
});

test.run();
