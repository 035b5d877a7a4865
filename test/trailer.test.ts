// The commit trailer end to end: real trailer processes whose PATH holds only recording fake `docker` and `gh`.
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
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../tools/free-port.ts';
import { listen, type Listening } from './support/listen.ts';
import { spawnProcess, stopAll } from './support/spawn-process.ts';
import { root } from './support/spawn-service.ts';
import { portProblem } from '../dev/local-stack/ports.ts';
import { createHash } from 'node:crypto';
import { symlinkSync } from 'node:fs';
import { createRepo, type TestRepo } from './support/git-repo.ts';
import { EVIDENCE_FORMAT, NOTES_REF, parseEvidence, writeEvidence } from '../smoke/trailer/evidence-note.ts';
import { runCommand } from '../tools/child-process.ts';

const test = suite('trailer');
const dir = mkdtempSync(join(tmpdir(), 'trailer-test-'));
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
  for arg in "$@"; do if [ "$arg" = up ]; then sleep 30; fi; done
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
    ...env,
  };
  for (const key of ['MONGODB_URI', 'HOST', 'PORT']) delete full[key]; // the local stack must not pick these up
  const proc = spawnProcess(process.execPath, ['--import', 'tsx', 'smoke/trailer.ts', ...args], {
    cwd: root,
    env: full,
  });
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
  repo = await createRepo('trailer-test-repo-');
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

test('no docker or podman on PATH: SKIPPED with the reason, exit 0, nothing run', async () => {
  const run = await trailer(['--issue', '42'], {}, empty);
  assert.is(run.code, 0, run.stderr);
  assert.equal(run.stdout, ['smoke: SKIPPED — no container runtime (neither docker nor podman on PATH)']);
  assert.equal(recorded(), []);
});

test('docker present but its daemon unreachable: SKIPPED naming the daemon, only `docker info` run', async () => {
  install('docker', FAKE_DOCKER);
  install('gh', FAKE_GH);
  const daemon = 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?';
  const run = await trailer(['--issue', '42'], { FAKE_INFO_FAIL: daemon });
  assert.is(run.code, 0, run.stderr);
  assert.equal(run.stdout, [`smoke: SKIPPED — docker daemon unreachable (${daemon})`]);
  assert.equal(recorded(), ['docker info'], 'no compose, no smoke, no gh for a SKIPPED trailer');
});

test(
  'a failed `docker info` or `podman info` (recorded outputs): ' + 'the trailer quotes the line that says why',
  async () => {
    const fixtures = join(root, 'test/fixtures/docker-info');
    const daemon = 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?';
    const cases: [string, string][] = [
      ['docker-20.10-no-daemon', `docker daemon unreachable (${daemon})`],
      [
        'docker-20.10-permission-denied',
        'docker daemon unreachable (Got permission denied while trying to connect to the Docker daemon socket ' +
          'at unix:///var/run/docker.sock: ' +
          'Get "http://%2Fvar%2Frun%2Fdocker.sock/v1.24/info": ' +
          'dial unix /var/run/docker.sock: connect: permission denied)',
      ],
      ['docker-26.1-no-daemon', `docker daemon unreachable (${daemon})`],
      ['docker-28.2.2-no-daemon', `docker daemon unreachable (${daemon})`],
      [
        'docker-28.2.2-permission-denied',
        'docker daemon unreachable (permission denied while trying to connect to the Docker daemon socket ' +
          'at unix:///run/user/1000/docker.sock: ' +
          'Get "http://%2Frun%2Fuser%2F1000%2Fdocker.sock/v1.50/info": ' +
          'dial unix /run/user/1000/docker.sock: connect: permission denied)',
      ],
      [
        'podman-4.9-remote-refused',
        'podman info failed (unable to connect to Podman socket: ' +
          'failed to connect: dial tcp 127.0.0.1:53771: connect: connection refused)',
      ],
      [
        'podman-4.3-rootless-no-newuidmap',
        'podman info failed (cannot set up namespace using "/usr/bin/newuidmap": ' +
          'should have setuid or have filecaps setuid: exit status 1)',
      ],
    ];
    for (const [name, reason] of cases) {
      rmSync(bin, { recursive: true, force: true });
      mkdirSync(bin, { recursive: true });
      // The same fake answers as docker or as podman (then alone on the PATH, as when docker is not installed).
      install(
        name.startsWith('podman') ? 'podman' : 'docker',
        FAKE_DOCKER.replaceAll('docker $*', `${name.split('-')[0]} $*`),
      );
      const run = await trailer([], { FAKE_INFO_REPLAY: join(fixtures, name) });
      assert.is(run.code, 0, run.stderr);
      assert.equal(run.stdout, [`smoke: SKIPPED — ${reason}`], name);
    }
  },
);

test('docker without the compose command: SKIPPED naming compose', async () => {
  install('docker', FAKE_DOCKER);
  const run = await trailer([], { FAKE_COMPOSE_FAIL: 'docker: unknown command: docker compose' });
  assert.is(run.code, 0, run.stderr);
  assert.equal(run.stdout, ['smoke: SKIPPED — docker compose unavailable (docker: unknown command: docker compose)']);
  assert.equal(recorded(), ['docker info', 'docker compose version']);
});

test('compose path, smoke passes: info, compose version, up --wait, the smoke, then down; PASS n/n', async () => {
  install('docker', FAKE_DOCKER);
  install('gh', FAKE_GH);
  const run = await trailer(['--compose-file', composeFile, '--issue', '42', ...(await targets())]);
  assert.is(run.code, 0, run.stderr);
  assert.equal(run.stdout, [`smoke: PASS — tree ${short()}: 3/3 probes against docker compose`]);
  assert.equal(ordered(), ['docker info', 'docker compose version', UP, IMAGES, DOWN], 'gh is not called on PASS');
  const lines = recorded();
  const hits = lines.flatMap((line, index) => (line.startsWith('HTTP ') ? [index] : []));
  assert.ok(hits.length >= 3, `the smoke probed the targets: ${lines.join(' | ')}`);
  assert.ok(
    hits[0]! > lines.indexOf(UP) && hits[hits.length - 1]! < lines.indexOf(DOWN),
    `smoke between up and down: ${lines.join(' | ')}`,
  );
  assert.ok(
    lines.includes('HTTP backend /api/health') &&
      lines.includes('HTTP backend /api/ready') &&
      lines.includes('HTTP frontend /'),
  );
});

test(
  'without --frontend/--backend: up with FRONTEND_PORT=0 BACKEND_PORT=0, ' +
    'then the smoke probes what `compose port` reports',
  async () => {
    install('docker', FAKE_DOCKER);
    const [, backendUrl, , frontendUrl, ...rest] = await targets();
    const run = await trailer(['--compose-file', composeFile, ...rest], {
      FAKE_RECORD_ENV: '1',
      FAKE_FRONTEND_ADDRESS: `127.0.0.1:${new URL(frontendUrl!).port}`,
      FAKE_BACKEND_ADDRESS: `0.0.0.0:${new URL(backendUrl!).port}`, // every address: probed on loopback
    });
    assert.is(run.code, 0, run.stderr);
    assert.equal(run.stdout, [`smoke: PASS — tree ${short()}: 3/3 probes against docker compose`]);
    const lines = recorded();
    assert.equal(
      ordered().filter((line) => !line.startsWith('env ')),
      [
        'docker info',
        'docker compose version',
        UP,
        `${compose} port frontend 3000`,
        `${compose} port backend 3001`,
        IMAGES,
        DOWN,
      ],
    );
    assert.is(
      lines[lines.indexOf(UP) + 1],
      `env FRONTEND_PORT=0 BACKEND_PORT=0 RELEASE_ID=${short()} SMOKE_EXPECT_VERSION=${short()}`,
      'the stack publishes on free ports of its own, built as the release of the smoked tree',
    );
    assert.ok(lines.includes('HTTP backend /api/ready') && lines.includes('HTTP frontend /'), lines.join(' | '));
  },
);

test('compose port answers nothing usable: FAIL naming the service, down still run', async () => {
  install('docker', FAKE_DOCKER);
  const run = await trailer(['--compose-file', composeFile], { FAKE_FRONTEND_ADDRESS: '' });
  assert.is(run.code, 0, run.stderr);
  assert.equal(run.stdout, [
    `smoke: FAIL — tree ${short()} (no parent): docker compose publishes no port 3000 for frontend (it printed "")`,
  ]);
  assert.equal(ordered(), ['docker info', 'docker compose version', UP, `${compose} port frontend 3000`, DOWN]);
});

test('compose path, a probe fails: FAIL with the first failing probe, down still run, issue labelled', async () => {
  install('docker', FAKE_DOCKER);
  install('gh', FAKE_GH);
  const run = await trailer(['--compose-file', composeFile, '--issue', '42', ...(await targets({ ready: 503 }))]);
  assert.is(run.code, 0, run.stderr);
  assert.is(run.stdout.length, 1, run.stdout.join('\n'));
  assert.equal(run.stdout, [`smoke: FAIL — tree ${short()} (no parent): [READY] backend: database disconnected`]);
  assert.equal(ordered(), [
    'docker info',
    'docker compose version',
    UP,
    IMAGES,
    PS,
    DOWN,
    'gh issue edit 42 --add-label ralph:blocked',
  ]);
  assert.match(run.stderr, /labelled issue 42 ralph:blocked/);
});

test(
  'compose up fails: FAIL with its last line, no smoke, down still run; ' + 'a failing gh is reported on stderr',
  async () => {
    install('docker', FAKE_DOCKER);
    install('gh', FAKE_GH);
    const unhealthy = 'dependency failed to start: container service-health-kit-smoke-backend-1 is unhealthy';
    const run = await trailer(['--compose-file', composeFile, '--issue', '7', ...(await targets())], {
      FAKE_UP_FAIL: unhealthy,
      FAKE_GH_FAIL: 'HTTP 401: Bad credentials',
    });
    assert.is(run.code, 0, run.stderr);
    assert.equal(run.stdout, [
      `smoke: FAIL — tree ${short()} (no parent): docker compose up did not become healthy (${unhealthy})`,
    ]);
    assert.equal(ordered(), [
      'docker info',
      'docker compose version',
      UP,
      PS,
      DOWN,
      'gh issue edit 7 --add-label ralph:blocked',
    ]);
    assert.match(run.stderr, /^trailer: could not label issue 7 ralph:blocked: HTTP 401: Bad credentials$/m);
  },
);

// What `docker compose ps --format json` prints (Compose 2.21+: one object per line), trimmed to what is read.
const psLine = (service: string, state: string, health: string) =>
  JSON.stringify({
    ID: `id-${service}`,
    Name: `service-health-kit-smoke-${service}-1`,
    Service: service,
    State: state,
    Health: health,
  });
const SECRET_TOKEN = 'device-token-0123456789abcdef';

test(
  'a probe fails against compose: the cause from the service log in the detail, ' +
    'its log and health checks in the report, secrets redacted',
  async () => {
    install('docker', FAKE_DOCKER);
    const logs = [
      '{"level":30,"msg":"backend listening","port":3001}',
      '{"level":40,"msg":"database unreachable; retrying","database":"mongodb://app:S3cret@database:27017/x",' +
        '"reason":"getaddrinfo ENOTFOUND database"}',
      `{"level":40,"msg":"token ${SECRET_TOKEN} refused"}`,
    ].join('\n');
    const run = await trailer(['--compose-file', composeFile, ...(await targets({ ready: 503 }))], {
      FAKE_PS: [psLine('database', 'running', 'healthy'), psLine('backend', 'running', 'healthy')].join('\n'),
      FAKE_LOGS: logs,
      FAKE_HEALTH: JSON.stringify({ Status: 'healthy', Log: [{ ExitCode: 0, Output: '' }] }),
      DEVICE_TOKEN: SECRET_TOKEN,
    });
    assert.is(run.code, 0, run.stderr);
    assert.equal(run.stdout, [
      `smoke: FAIL — tree ${short()} (no parent): [READY] backend: database disconnected ` +
        '(backend log: getaddrinfo ENOTFOUND database)',
    ]);
    assert.equal(ordered(), [
      'docker info',
      'docker compose version',
      UP,
      IMAGES,
      PS,
      `${LOGS} backend`,
      'docker inspect --format {{json .State.Health}} id-backend',
      DOWN,
    ]);
    const reportPath = join(dir, 'artifacts', 'smoke-report.md');
    assert.match(run.stderr, `trailer: failure report: ${reportPath}`);
    const report = readFileSync(reportPath, 'utf8');
    assert.match(report, /^# smoke: FAIL \(1\/3 failed\)\n/, 'the smoke wrote it; the trailer added to it');
    assert.match(report, '- Checks: `database = disconnected`');
    assert.match(report, '### backend: running, healthy (its probe failed)');
    assert.match(report, '"reason":"getaddrinfo ENOTFOUND database"');
    assert.match(report, '- exit 0: (nothing printed)');
    assert.not.match(report, /### database/, 'a healthy service whose probe passed is not shown');
    assert.not.match(report, /S3cret|device-token-0123/, 'no password or token reaches the report');
    assert.match(report, 'mongodb://app:***@database');
  },
);

test('the engine is gone when the logs are read: FAIL all the same, and the report says so', async () => {
  install('docker', FAKE_DOCKER);
  const gone = 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?';
  const run = await trailer(['--compose-file', composeFile, ...(await targets({ ready: 503 }))], {
    FAKE_PS_FAIL: gone,
  });
  assert.is(run.code, 0, run.stderr);
  assert.equal(run.stdout, [`smoke: FAIL — tree ${short()} (no parent): [READY] backend: database disconnected`]);
  const report = readFileSync(join(dir, 'artifacts', 'smoke-report.md'), 'utf8');
  assert.match(report, `Container logs could not be read: the containers could not be listed (${gone}).`);
});

test('compose up fails on a health check that cannot run: its output names the cause', async () => {
  install('docker', FAKE_DOCKER);
  const unhealthy = 'dependency failed to start: container service-health-kit-smoke-backend-1 is unhealthy';
  const exec =
    'OCI runtime exec failed: exec failed: unable to start container process: exec: "node": ' +
    'executable file not found in $PATH: unknown';
  const run = await trailer(['--compose-file', composeFile, ...(await targets())], {
    FAKE_UP_FAIL: unhealthy,
    FAKE_PS: [psLine('database', 'running', 'healthy'), psLine('backend', 'running', 'unhealthy')].join('\n'),
    FAKE_LOGS: '{"level":30,"msg":"backend listening","port":3001}',
    FAKE_HEALTH: JSON.stringify({ Status: 'unhealthy', Log: [{ ExitCode: -1, Output: exec }] }),
  });
  assert.is(run.code, 0, run.stderr);
  const cause = 'exec: "node": executable file not found in $PATH: unknown';
  const detail =
    `tree ${short()} (no parent): ` +
    `docker compose up did not become healthy (${unhealthy}; backend health check: ${cause})`;
  assert.ok(detail.length < 300, 'one line, not cut');
  assert.equal(run.stdout, [`smoke: FAIL — ${detail}`]);
  const report = readFileSync(join(dir, 'artifacts', 'smoke-report.md'), 'utf8');
  assert.match(report, `# smoke: FAIL — tree ${short()}: docker compose up did not become healthy`);
  assert.match(report, '### backend: running, unhealthy (not running healthy)');
  assert.match(report, `- exit -1: ${exec}`);
  assert.not.match(report, /### database/);
});

test('gh missing on FAIL: said on stderr, the trailer is still printed', async () => {
  install('docker', FAKE_DOCKER);
  const run = await trailer(['--compose-file', composeFile, '--issue', '42'], { FAKE_UP_FAIL: 'boom' });
  assert.is(run.code, 0, run.stderr);
  assert.equal(run.stdout, [
    `smoke: FAIL — tree ${short()} (no parent): docker compose up did not become healthy (boom)`,
  ]);
  assert.match(run.stderr, /^trailer: could not label issue 42 ralph:blocked: gh not found on PATH$/m);
});

test('bad arguments: exit 2, no trailer, one line pointing at --help, nothing run', async () => {
  install('docker', FAKE_DOCKER);
  for (const args of [
    ['--issue', '42;touch /tmp/x'],
    ['--issue'],
    ['--wait-timeout', 'soon'],
    ['--bogus'],
    ['extra'],
  ]) {
    const run = await trailer(args);
    assert.is(run.code, 2, args.join(' '));
    assert.equal(run.stdout, [], args.join(' '));
    assert.match(
      run.stderr,
      /^trailer: [^\n]+ \(run with --help (for the usage|to list the options)\)$/,
      args.join(' '),
    );
  }
  assert.equal(recorded(), [], 'nothing runs before the arguments are valid');
});

test('check: exit 0 for a good message, 1 with a one-line reason for a bad one, 2 for no file', async () => {
  const message = join(dir, 'COMMIT_EDITMSG');
  writeFileSync(
    message,
    'Backend: readiness\n\nsmoke: SKIPPED — no container runtime (neither docker nor podman on PATH)\n',
  );
  const good = await trailer(['check', message]);
  assert.is(good.code, 0, good.stderr);
  assert.equal(good.stdout, []);
  writeFileSync(message, 'Backend: readiness\n\nsmoke: SKIPPED - offline\n');
  const bad = await trailer(['check', message]);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /^smoke trailer check: malformed smoke trailer "smoke: SKIPPED - offline": use the em dash/);
  assert.is(bad.stderr.trim().split('\n').length, 1);
  const missing = await trailer(['check', join(dir, 'nope')]);
  assert.is(missing.code, 2);
  assert.match(missing.stderr, /cannot read .*nope: ENOENT/);
});

test("--local-stack without a runtime: SKIPPED with the reason and the local stack's 5/5, never PASS", async () => {
  const ports = Object.fromEntries(
    await Promise.all(
      ['BACKEND_PORT', 'DEVICE_PORT', 'FRONTEND_PORT', 'MONGO_PORT'].map(async (key) => [
        key,
        String(await freePort()),
      ]),
    ),
  );
  const env = { ...ports, SMOKE_ARTIFACTS: join(dir, 'local'), DEVICE_SPOOL_DIR: join(dir, 'spool') };
  const run = await trailer(['--local-stack'], env, empty, 240_000);
  assert.is(run.code, 0, run.stderr);
  assert.equal(run.stdout, [
    'smoke: SKIPPED — no container runtime (neither docker nor podman on PATH); local stack 5/5 PASS',
  ]);
  for (const port of Object.values(ports))
    assert.is(await portProblem(Number(port)), undefined, `port ${port} free again`);
});

/** The evidence noted on a tree of the test's repository. */
async function noted(onTree: string) {
  const blob = await repo.git(['notes', `--ref=${NOTES_REF}`, 'list', onTree]);
  const read = parseEvidence(await repo.git(['cat-file', 'blob', blob]));
  assert.ok(read.found, JSON.stringify(read));
  return (read as Extract<typeof read, { found: true }>).evidence;
}

/** Commits what is staged (with `message`) and stages a new change: the next smoke's parent is that commit. */
async function advance(message = 'Change\n\nWhy.') {
  await repo.git(['commit', '--quiet', '--allow-empty', '-m', message]);
  await repo.stage({ [`change-${Date.now()}.txt`]: 'x' });
  tree = await repo.git(['write-tree']);
  return repo.git(['rev-parse', 'HEAD^{tree}']);
}

const verifyRun = async (rev: string) => {
  // From inside the repository, as a reader would: tsx named by its full address, since cwd holds no node_modules.
  const tsx = import.meta.resolve('tsx');
  const proc = spawnProcess(process.execPath, ['--import', tsx, join(root, 'smoke/trailer.ts'), 'verify', rev], {
    cwd: repo.dir,
    env: { ...process.env, ...repo.env },
  });
  const code = await proc.waitExit(60_000);
  return { code, stdout: proc.stdout.filter(Boolean), stderr: proc.stderr.filter(Boolean) };
};

test('a PASS notes its evidence on the tree; the commit made with it verifies (0), an edited one not (1)', async () => {
  install('docker', FAKE_DOCKER);
  const run = await trailer(['--compose-file', composeFile, ...(await targets())]);
  const line = `smoke: PASS — tree ${short()}: 3/3 probes against docker compose`;
  assert.equal(run.stdout, [line], run.stderr);
  const evidence = await noted(tree);
  assert.equal(
    [evidence.format, evidence.tree, evidence.verdict, evidence.trailer, evidence.runtime, evidence.baseline],
    [EVIDENCE_FORMAT, tree, 'PASS', line, 'docker', null],
  );
  assert.is(
    evidence.composeConfig,
    `sha256:${createHash('sha256').update('name: fake\nservices: {}\n').digest('hex')}`,
  );
  assert.equal(evidence.images, { backend: 'sha256:b4c0', frontend: 'sha256:f40e' });
  assert.equal([evidence.smoke?.result, evidence.smoke?.total], ['PASS', 3]);
  await advance(`Smoked change\n\nWhy.\n\n${line}`);
  const good = await verifyRun('HEAD');
  assert.is(good.code, 0, good.stderr.join('\n'));
  assert.match(
    good.stdout.join('\n'),
    /^smoke trailer verified: commit [0-9a-f]{12}: PASS on tree [0-9a-f]{12}, evidence of /,
  );
  await repo.git(['commit', '--quiet', '--amend', '--only', '-m', `Smoked change\n\n${line.replace('3/3', '4/4')}`]);
  const edited = await verifyRun('HEAD');
  assert.is(edited.code, 1);
  assert.equal(edited.stdout, []);
  assert.is(edited.stderr.length, 1);
  assert.match(
    edited.stderr[0]!,
    /^smoke trailer verify: commit [0-9a-f]{12}: the trailer differs from the one the smoke printed/,
  );
  const nowhere = await verifyRun('no-such-rev');
  assert.equal(
    [nowhere.code, nowhere.stderr],
    [2, ['smoke trailer verify: no-such-rev is not a commit in this repository']],
  );
});

test('a FAIL the parent shares: baseline from its evidence; --label-regressions-only spares the issue', async () => {
  install('docker', FAKE_DOCKER);
  install('gh', FAKE_GH);
  const parentTree = await advance();
  const parent = { format: EVIDENCE_FORMAT, tree: parentTree, trailer: 'x', runtime: 'docker', at: 'then' } as const;
  const rest = { composeConfig: null, images: {}, smoke: null, baseline: null };
  await writeEvidence(repo.handle, { ...parent, ...rest, verdict: 'FAIL' });
  const args = [
    '--compose-file',
    composeFile,
    '--issue',
    '42',
    '--label-regressions-only',
    ...(await targets({ ready: 503 })),
  ];
  const shared = await trailer(args);
  assert.equal(shared.stdout, [
    `smoke: FAIL — tree ${short()} (parent failed too): [READY] backend: database disconnected`,
  ]);
  assert.not.ok(
    commands().some((line) => line.startsWith('gh ')),
    'not labelled',
  );
  assert.match(
    shared.stderr,
    'trailer: not labelling issue 42 ralph:blocked: the parent failed too (--label-regressions-only)',
  );
  const baseline = (await noted(tree)).baseline;
  assert.equal(baseline, {
    parent: await repo.git(['rev-parse', 'HEAD']),
    tree: parentTree,
    verdict: 'FAIL',
    source: 'evidence',
    phrase: 'parent failed too',
  });
  await writeEvidence(repo.handle, { ...parent, ...rest, verdict: 'PASS' });
  rmSync(record, { force: true });
  const regression = await trailer(args);
  assert.equal(regression.stdout, [
    `smoke: FAIL — tree ${short()} (parent passed): [READY] backend: database disconnected`,
  ]);
  assert.ok(commands().includes('gh issue edit 42 --add-label ralph:blocked'), 'a regression is labelled');
});

test('a parent without evidence is smoked within the bound for the baseline; past it, unknown', async () => {
  install('docker', FAKE_DOCKER);
  install('gh', FAKE_GH);
  await advance(); // the tree smoked last becomes the parent's parent: that one has evidence
  const parentTree = await advance();
  const args = ['--compose-file', composeFile, ...(await targets({ ready: 503 }))];
  const smoked = await trailer(args);
  assert.equal(smoked.stdout, [
    `smoke: FAIL — tree ${short()} (parent failed too): [READY] backend: database disconnected`,
  ]);
  assert.match(smoked.stderr, `smoking the parent's tree ${parentTree.slice(0, 12)} for a baseline`);
  assert.is(commands().filter((line) => line === UP).length, 2, 'the change, then its parent');
  assert.is((await noted(parentTree)).verdict, 'FAIL', "the parent's run is noted: next time it is read");
  assert.is((await noted(tree)).baseline?.source, 'smoked');
  await advance();
  const slowParent = await advance();
  rmSync(record, { force: true });
  const late = await trailer([...args, '--issue', '9', '--label-regressions-only', '--baseline-timeout', '2'], {
    FAKE_SLOW_RELEASE: slowParent.slice(0, 12),
  });
  assert.equal(late.stdout, [
    `smoke: FAIL — tree ${short()} (parent not smoked within 2 s): [READY] backend: database disconnected`,
  ]);
  assert.ok(commands().includes('gh issue edit 9 --add-label ralph:blocked'), 'an unknown baseline is labelled');
  assert.is(commands().filter((line) => line === DOWN).length, 2, 'the parent stack is brought down past the bound');
  assert.is(
    (await repo.git(['notes', `--ref=${NOTES_REF}`, 'list'])).includes(slowParent),
    false,
    'nothing noted for it',
  );
});

test("a dead backend URL: the backend's start-up DEVICE_TOKEN warning is not named as the cause", async () => {
  install('docker', FAKE_DOCKER);
  const [, , , frontendUrl, ...rest] = await targets();
  const dead = `http://127.0.0.1:${await freePort()}`;
  const startUp = Date.now() - 60_000;
  const logs = [
    JSON.stringify({
      level: 40,
      time: startUp,
      msg: 'DEVICE_TOKEN is not set: every device socket upgrade is refused (401)',
    }),
    JSON.stringify({ level: 30, time: startUp + 5, msg: 'backend listening', port: 3001 }),
  ].join('\n');
  const run = await trailer(
    ['--compose-file', composeFile, '--baseline-timeout', '0', '--backend', dead, '--frontend', frontendUrl!, ...rest],
    {
      FAKE_PS: psLine('backend', 'running', 'healthy'),
      FAKE_LOGS: logs,
    },
  );
  assert.is(run.stdout.length, 1, run.stderr);
  assert.match(run.stdout[0]!, new RegExp(`^smoke: FAIL — tree ${short()} \\([^)]*\\): \\[HEALTH\\] backend: `));
  assert.not.match(run.stdout[0]!, /DEVICE_TOKEN|backend log/);
  const report = readFileSync(join(dir, 'artifacts', 'smoke-report.md'), 'utf8');
  assert.match(report, 'DEVICE_TOKEN is not set', 'the report still shows the whole log');
});

test.run();
