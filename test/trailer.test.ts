// The commit trailer end to end: real trailer processes whose PATH holds only recording fake `docker` and `gh`.
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../tools/free-port.ts';
import { root } from './support/spawn-service.ts';
import { portProblem } from '../dev/local-stack/ports.ts';
import { trailerHarness } from './support/trailer-harness.ts';

const h = trailerHarness('trailer');
const { test, dir, bin, empty, record, composeFile, FAKE_DOCKER, FAKE_GH, install, targets, trailer } = h;
const { recorded, commands, ordered, short, psLine, compose, UP, PS, LOGS, DOWN, IMAGES } = h;

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

test.run();
