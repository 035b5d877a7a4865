// The trailer run end to end against recording fakes: a PATH holding only fake `docker` and `gh` scripts (and the
// real git and sleep), a repository of the test's own (GIT_DIR) for the tree and its evidence, stand-in targets.
// Each test file of the trailer takes one, with its hooks registered on its suite.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listen, type Listening } from './listen.ts';
import { spawnProcess, stopAll } from './spawn-process.ts';
import { root } from './spawn-service.ts';
import { compiledEntriesEnv, serviceArgs } from './compiled-services.ts';
import { createRepo, type TestRepo } from './git-repo.ts';

export function trailerHarness(name: string) {
  const test = suite(name);
  const dir = mkdtempSync(join(tmpdir(), `${name}-test-`));
  const bin = join(dir, 'bin');
  const empty = join(dir, 'empty');
  const record = join(dir, 'record.txt');
  const composeFile = join(dir, 'compose.yaml');
  const servers: Listening[] = [];
  // The trailer notes its evidence in a repository of the test's own (GIT_DIR), never in the project's.
  let repo: TestRepo;
  let tree = '';
  const FAKE_IMAGES = JSON.stringify([
    { ContainerName: 'service-health-kit-smoke-backend-1', Repository: 'x-backend', ID: 'sha256:b4c0' },
    { ContainerName: 'service-health-kit-smoke-frontend-1', Repository: 'x-frontend', ID: 'sha256:f40e' },
  ]);

  // Each fake appends "<name> <argv>" to the record file; its behaviour is steered by FAKE_* variables.
  const FAKE_DOCKER = `#!/bin/sh
  if [ -n "$FAKE_RECORD_ENV" ]; then
    # One write for both lines: commands run side by side must not split them.
    printf '%s\\nenv FRONTEND_PORT=%s BACKEND_PORT=%s RELEASE_ID=%s SMOKE_EXPECT_VERSION=%s\\n' "docker $*" \\
      "\${FRONTEND_PORT-unset}" "\${BACKEND_PORT-unset}" "\${RELEASE_ID-unset}" "\${SMOKE_EXPECT_VERSION-unset}" \\
      >> "$FAKE_RECORD"
  else
    printf '%s\\n' "docker $*" >> "$FAKE_RECORD"
  fi
  if [ -n "$FAKE_SLOW_RELEASE" ] && [ "$RELEASE_ID" = "$FAKE_SLOW_RELEASE" ]; then
    # exec: the SIGTERM at the trailer's bound ends the sleep itself. A shell killed while it waits leaves its sleep
    # holding the output pipes, and the trailer reads them to their end: 30 s, as no real compose would hold them.
    for arg in "$@"; do if [ "$arg" = up ]; then exec sleep 30; fi; done
  fi
  case "$*" in
    *" config") printf 'name: fake\nservices: {}\n'; exit 0;;
    *" images --format json") printf '%s\n' "$FAKE_IMAGES"; exit 0;;
    *" port frontend 3000") echo "$FAKE_FRONTEND_ADDRESS"; exit 0;;
    *" port backend 3001") echo "$FAKE_BACKEND_ADDRESS"; exit 0;;
    *" ps --all --format json")
      if [ -n "$FAKE_PS_FAIL" ]; then echo "$FAKE_PS_FAIL" >&2; exit 1; fi
      printf '%s\n' "$FAKE_PS"; exit 0;;
    *" logs --no-color --no-log-prefix --tail 200 "*) printf '%s\n' "$FAKE_LOGS"; exit 0;;
    "inspect --format {{json .State.Health}} "*) printf '%s\n' "\${FAKE_HEALTH:-null}"; exit 0;;
  esac
  if [ "$1" = info ]; then
    if [ -n "$FAKE_INFO_REPLAY" ]; then
      # Builtins only: the PATH holds nothing but the fakes.
      while IFS= read -r line; do printf '%s\\n' "$line"; done < "$FAKE_INFO_REPLAY.stdout"
      while IFS= read -r line; do printf '%s\\n' "$line" >&2; done < "$FAKE_INFO_REPLAY.stderr"
      read -r code < "$FAKE_INFO_REPLAY.exit"; exit "$code"
    fi
    if [ -n "$FAKE_INFO_FAIL" ]; then echo "$FAKE_INFO_FAIL" >&2; exit 1; fi
    echo "Server Version: 27.3.1"; exit 0
  fi
  if [ "$1 $2" = "compose version" ]; then
    if [ -n "$FAKE_COMPOSE_FAIL" ]; then echo "$FAKE_COMPOSE_FAIL" >&2; exit 1; fi
    echo "Docker Compose version v2.29.7"; exit 0
  fi
  for arg in "$@"; do
    if [ "$arg" = up ] && [ -n "$FAKE_UP_FAIL" ]; then echo "$FAKE_UP_FAIL" >&2; exit 1; fi
  done
  exit 0
  `;
  const FAKE_GH = `#!/bin/sh
  printf '%s\\n' "gh $*" >> "$FAKE_RECORD"
  if [ -n "$FAKE_GH_FAIL" ]; then echo "$FAKE_GH_FAIL" >&2; exit 1; fi
  exit 0
  `;

  const which = (tool: string) =>
    (process.env.PATH ?? '')
      .split(':')
      .map((d) => join(d, tool))
      .find((path) => existsSync(path))!;

  function install(name: string, script: string) {
    writeFileSync(join(bin, name), script);
    chmodSync(join(bin, name), 0o755);
  }

  /** A stand-in backend and frontend that log each request into the same record, so order can be checked. */
  async function targets({ ready = 200 } = {}) {
    const backend = await listen((req, res) => {
      appendFileSync(record, `HTTP backend ${req.url}\n`);
      const now = new Date().toISOString();
      const body =
        req.url === '/api/health'
          ? { status: 'ok', timestamp: now, uptime: 1.5, environment: 'production', version: tree.slice(0, 12) }
          : ready === 200
            ? { status: 'ready', timestamp: now, checks: { database: 'connected' } }
            : { status: 'not_ready', timestamp: now, checks: { database: 'disconnected' } };
      res
        .writeHead(req.url === '/api/health' ? 200 : ready, { 'content-type': 'application/json' })
        .end(JSON.stringify(body));
    });
    const frontend = await listen((req, res) => {
      appendFileSync(record, `HTTP frontend ${req.url}\n`);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>status</title><h1>status</h1>');
    });
    servers.push(backend, frontend);
    return [
      '--backend',
      backend.url,
      '--frontend',
      frontend.url,
      '--artifacts',
      join(dir, 'artifacts'),
      '--timeout',
      '10000',
    ];
  }

  async function trailer(args: string[], env: Record<string, string> = {}, path = bin, limitMs = 90_000) {
    const full: NodeJS.ProcessEnv = {
      ...process.env,
      ...repo.env,
      GIT_DIR: join(repo.dir, '.git'),
      PATH: path,
      FAKE_RECORD: record,
      FAKE_IMAGES,
      ...(await compiledEntriesEnv(root)), // the smoke and the local stack it starts, compiled as the trailer is
      ...env,
    };
    for (const key of ['MONGODB_URI', 'HOST', 'PORT']) delete full[key]; // the local stack must not pick these up
    const entry = await serviceArgs(root, 'smoke/trailer.ts');
    const proc = spawnProcess(process.execPath, [...entry, ...args], { cwd: root, env: full });
    const code = await proc.waitExit(limitMs);
    return { code, stdout: proc.stdout.filter(Boolean), stderr: proc.stderr.join('\n') };
  }

  const recorded = () => (existsSync(record) ? readFileSync(record, 'utf8').split('\n').filter(Boolean) : []);
  const commands = () => recorded().filter((line) => !line.startsWith('HTTP '));
  const compose = `docker compose -f ${composeFile} -p service-health-kit-smoke`;
  const UP = `${compose} up --build --detach --wait --wait-timeout 300`;
  const PS = `${compose} ps --all --format json`;
  const LOGS = `${compose} logs --no-color --no-log-prefix --tail 200`;
  const DOWN = `${compose} down --volumes --remove-orphans`;
  const CONFIG = `${compose} config`;
  const IMAGES = `${compose} images --format json`;
  /** The commands in order; `compose config` runs beside `up`, so it is checked apart (once, before DOWN). */
  const ordered = () => {
    const all = commands();
    assert.is(all.filter((line) => line === CONFIG).length, all.includes(UP) ? 1 : 0, all.join(' | '));
    return all.filter((line) => line !== CONFIG);
  };
  const short = () => tree.slice(0, 12);

  test.before(async () => {
    repo = await createRepo(`${name}-repo-`);
    await repo.stage({ 'a.txt': 'a' });
    tree = await repo.git(['write-tree']);
  });
  test.after(() => repo.remove());

  test.before.each(() => {
    rmSync(bin, { recursive: true, force: true });
    mkdirSync(bin, { recursive: true });
    mkdirSync(empty, { recursive: true });
    rmSync(record, { force: true });
    writeFileSync(composeFile, 'services: {}\n');
    // git and sleep beside the fakes: the trailer names its tree with the real git.
    for (const tool of ['git', 'sleep']) symlinkSync(which(tool), join(bin, tool));
  });
  test.after.each(async () => {
    await stopAll();
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  test.after(() => rmSync(dir, { recursive: true, force: true }));

  // What `docker compose ps --format json` prints (Compose 2.21+: one object per line), trimmed to what is read.
  const psLine = (service: string, state: string, health: string) =>
    JSON.stringify({
      ID: `id-${service}`,
      Name: `service-health-kit-smoke-${service}-1`,
      Service: service,
      State: state,
      Health: health,
    });
  return {
    test,
    dir,
    bin,
    empty,
    record,
    composeFile,
    FAKE_DOCKER,
    FAKE_GH,
    install,
    targets,
    trailer,
    recorded,
    commands,
    ordered,
    short,
    psLine,
    compose,
    UP,
    PS,
    LOGS,
    DOWN,
    CONFIG,
    IMAGES,
    /** The test's repository, and the tree its index holds (the next smoke's). */
    get repo() {
      return repo;
    },
    get tree() {
      return tree;
    },
    set tree(value: string) {
      tree = value;
    },
  };
}
