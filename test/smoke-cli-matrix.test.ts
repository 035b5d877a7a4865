// The smoke CLI as a real process against bad local servers and bad input: exit code, exact lines, reason and
// screenshot file, for each case. Cases run a few at a time; each test awaits its own run. How long a hostile
// server can hold a probe or a run is test/faults/smoke-hostile.fault.ts's to bound.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFixtureHandler } from './support/fake-http-server.ts';
import { createPool, normalise, PNG_SIGNATURE, runCli, type CliRun } from './support/run-smoke-cli.ts';
import { listen, type Listening } from './support/listen.ts';
import { freePort } from '../tools/free-port.ts';
import { STUCK_SHOT_MS } from '../smoke/load-probe.ts';
import { stopAll } from './support/spawn-process.ts';
import { FS_ANSWER_MS } from '../smoke/fs-answer.ts';

const base = mkdtempSync(join(tmpdir(), 'smoke-matrix-'));
const fx: Listening = await listen(createFixtureHandler());
const refused = await freePort();
const F = fx.url;
const FP = fx.port;
const fakeChrome = join(base, 'chrome-that-fails');
writeFileSync(fakeChrome, '#!/bin/sh\necho "cannot open display" >&2\nexit 1\n');
chmodSync(fakeChrome, 0o755);
writeFileSync(join(base, 'a-file'), '');

type Shot = 'ok' | 'fail' | 'error';
/** One CLI process. `cases` are the bad inputs it covers: a backend case and a device case share a run. */
interface Run {
  cases: string[];
  args: string[];
  env?: Record<string, string>;
  timeout: number;
  code: 0 | 1 | 2;
  stdout: string[];
  /** Exact stderr lines, or a check on them. */
  stderr?: string[] | ((lines: string[]) => void);
  shot: Shot | null;
}

/**
 * The timeout of a run whose page must reach its verdict (PASS, HTTP 500, a thrown error…): the load has to fit
 * while three Chromiums start beside the other test files on two cores (1720 ms was seen under heavy load).
 * Only a probe that hangs waits it out.
 */
const ROOMY = 5000;
/** The timeout of a run whose page must time out: short, so the matrix stays quick. */
const SHORT = 1500;
/**
 * The timeout of a run whose page fails at once (refused, a TLS error) and whose probes all answer at once: nothing
 * waits it out, and it bounds the capture of Chromium's error page, which took 1.2 to 7.4 s with six Chromiums at a
 * load average of 39 (5 s was missed once in a run of the whole suite beside two CPU burners).
 */
const AT_ONCE = 10_000;

const nameOf = (run: Run) => run.cases.join('+');
const dirOf = (run: Run) => join(base, nameOf(run));
const probe = (kind: string, target: string, reasons: string[]) =>
  reasons.length
    ? [`[${kind}] ${target} ... FAIL (Nms)`, ...reasons.map((r) => `    ${r}`)]
    : [`[${kind}] ${target} ... PASS (Nms)`];
const load = (dir: string, shot: Shot, lines: string[]) => [
  `[LOAD] frontend ... ${shot === 'ok' ? 'PASS' : 'FAIL'} (Nms) screenshot=${dir}/frontend-${shot}.png`,
  ...lines.map((l) => `    ${l}`),
];
const backendOk = [...probe('HEALTH', 'backend', []), ...probe('READY', 'backend', [])];

/** A bad HTTP service: its path under the fixture (or a full URL) and the reasons for HEALTH and READY ([] = PASS). */
interface HttpCase {
  name: string;
  url: string;
  health: string[];
  ready?: string[];
}
const at = (path: string) => (path.startsWith('http') ? path : `${F}/${path}`);

/** A frontend for LOAD: its URL, the picture it leaves and the lines under the LOAD line ([] = nothing to say). */
interface PageCase {
  name: string;
  url: string;
  shot: Shot;
  lines: string[];
  /** Extra flags (`--strict`). */
  flags?: string[];
  stderr?: Run['stderr'];
  timeout?: number;
}
const healthyPage: PageCase = { name: '', url: `${F}/`, shot: 'ok', lines: [] };

/**
 * Backend and device service both bad, and the frontend healthy or bad too: each probe fails as its case says.
 * A bad frontend shares the run of two bad services (its LOAD line, picture and stderr are its own), so the
 * matrix starts one Chromium for three cases rather than two.
 */
function pair(backend: HttpCase, device: HttpCase, page = healthyPage): Run {
  const lines = (c: HttpCase, target: string) => [
    ...probe('HEALTH', target, c.health),
    ...probe('READY', target, c.ready ?? c.health),
  ];
  const httpReasons = [backend.health, backend.ready ?? backend.health, device.health, device.ready ?? device.health];
  const failed = httpReasons.filter((r) => r.length).length + (page.shot === 'ok' ? 0 : 1);
  const run: Run = {
    cases: [backend.name, device.name, ...(page.name ? [page.name] : [])],
    args: ['--backend', at(backend.url), '--device', at(device.url), '--frontend', page.url, ...(page.flags ?? [])],
    timeout: page.timeout ?? ROOMY,
    code: 1,
    stdout: [],
    ...(page.stderr ? { stderr: page.stderr } : {}),
    shot: page.shot,
  };
  run.stdout = [
    ...lines(backend, 'backend'),
    ...lines(device, 'device'),
    ...load(dirOf(run), page.shot, page.lines),
    `smoke: FAIL (${failed}/5 failed)`,
  ];
  return run;
}

/** Backend healthy, frontend noisy but passing: every probe passes, exit 0 (bad frontends share a pair's run). */
function frontend(name: string, url: string, lines: string[], extra: Partial<Run> = {}): Run {
  const run: Run = {
    cases: [name],
    args: ['--backend', `${F}/ok`, '--frontend', url],
    timeout: ROOMY,
    code: 0,
    ...extra,
    stdout: [],
    shot: 'ok',
  };
  run.stdout = [...backendOk, ...load(dirOf(run), 'ok', lines), 'smoke: PASS (3/3)'];
  return run;
}

/** A run that cannot happen: exit 2, one line on stderr, nothing on stdout, no screenshot. */
const broken = (name: string, args: string[], line: string, env?: Record<string, string>): Run => ({
  cases: [name],
  args: ['--backend', `${F}/ok`, '--frontend', `${F}/`, ...args],
  ...(env ? { env } : {}),
  timeout: ROOMY,
  code: 2,
  stdout: [],
  stderr: [line],
  shot: null,
});

const hasStack = (message: string) => (lines: string[]) => {
  assert.ok(lines.includes(`Error: ${message}`), `stack trace header in:\n${lines.join('\n')}`);
  assert.ok(
    lines.some((l) => /^\s+at /.test(l)),
    'stack frames on stderr',
  );
};
const refusedReason = `connection refused at 127.0.0.1:${refused} (is the service running?)`;
const ROOT = process.getuid?.() === 0;
const HINT = 'install Chromium (apt-get install chromium) or set CHROME_PATH to a Chrome/Chromium executable';

const runs: Run[] = [
  pair(
    { name: 'refused-port', url: `http://127.0.0.1:${refused}`, health: [refusedReason] },
    {
      name: 'device-readiness-503',
      url: 'device-degraded',
      health: [],
      ready: ['HTTP 503 Service Unavailable', 'checks: backend=disconnected'],
    },
    { name: 'frontend-500', url: `${F}/page500/`, shot: 'fail', lines: ['HTTP 500 Internal Server Error'] },
  ),
  pair(
    // The same run loads a healthy frontend, which must PASS within the timeout the hanging probes wait out.
    { name: 'accept-and-hang', url: 'hang', health: [`no response within ${ROOMY}ms`] },
    { name: 'slow-body', url: 'slow-body', health: [`body not complete within ${ROOMY}ms (15 bytes received)`] },
  ),
  pair(
    {
      name: 'html-200',
      url: 'html',
      health: ['body is not JSON (text/html): "<!doctype html><p>Welcome to nginx!</p>"'],
    },
    {
      name: 'json-wrong-status',
      url: 'wrong-status',
      health: ['wrong body: status is "degraded" (string), expected "ok"'],
      ready: [
        'wrong body: status is "starting" (string), expected "ready"',
        'checks: database=connected, serial=emulator, backend=connected',
      ],
    },
    {
      name: 'page-throws-strict',
      url: `${F}/throws/`,
      shot: 'fail',
      lines: ['--strict: 1 page issue', 'page exception: boom from the page'],
      flags: ['--strict'],
    },
  ),
  // The two URLs swapped: each service is healthy, but its readiness lacks the checks the other always reports.
  pair(
    {
      name: 'device-as-backend',
      url: 'device-only',
      health: [],
      ready: ['wrong body: checks.database is missing', 'checks: serial=emulator, backend=connected'],
    },
    {
      name: 'backend-as-device',
      url: 'backend-only',
      health: [],
      ready: ['wrong body: checks.serial is missing; checks.backend is missing', 'checks: database=connected'],
    },
    {
      name: 'console-error-strict',
      url: `${F}/console-error/`,
      shot: 'fail',
      lines: ['--strict: 1 page issue', 'console error: widget failed'],
      flags: ['--strict'],
    },
  ),
  pair(
    {
      name: 'json-wrong-types',
      url: 'wrong-types',
      health: [
        'wrong body: timestamp is 1700000000 (number), expected an ISO 8601 date-time string; ' +
          'uptime is "12" (string), expected a number; environment is 5 (number), expected a string',
      ],
      ready: ['wrong body: status is "ok" (string), expected "ready"; checks is "fine" (string), expected an object'],
    },
    {
      name: 'json-missing-fields',
      url: 'missing-fields',
      health: [
        'wrong body: timestamp is missing, expected an ISO 8601 date-time string; ' +
          'uptime is missing, expected a number; environment is missing, expected a string',
      ],
      ready: ['wrong body: status is "ok" (string), expected "ready"; checks is missing, expected an object'],
    },
    {
      name: 'frontend-refused',
      url: `http://127.0.0.1:${refused}/`,
      shot: 'error',
      lines: [`net::ERR_CONNECTION_REFUSED at http://127.0.0.1:${refused}/`],
      stderr: hasStack(`net::ERR_CONNECTION_REFUSED at http://127.0.0.1:${refused}/`),
      timeout: AT_ONCE,
    },
  ),
  pair(
    { name: 'json-not-an-object', url: 'not-object', health: ['body is JSON but not an object: "[\\"ok\\"]"'] },
    {
      name: 'http-500',
      url: 'error500',
      health: ['HTTP 500 Internal Server Error', 'body: "Internal Server Error: boom"'],
    },
    {
      name: 'frontend-tls-to-plain-port',
      url: `https://127.0.0.1:${FP}/`,
      shot: 'error',
      lines: [`net::ERR_SSL_PROTOCOL_ERROR at https://127.0.0.1:${FP}/`],
      stderr: hasStack(`net::ERR_SSL_PROTOCOL_ERROR at https://127.0.0.1:${FP}/`),
      timeout: AT_ONCE,
    },
  ),
  // The pages that must time out get SHORT, and so do their run's HTTP probes: services that answer at once.
  pair(
    {
      name: 'backend-readiness-503',
      url: 'not-ready',
      health: [],
      ready: ['HTTP 503 Service Unavailable', 'checks: database=disconnected'],
    },
    {
      name: 'redirect-loop',
      url: 'loop',
      health: [`redirect loop: HTTP 302 from ${F}/loop/api/health back to ${F}/loop/api/health`],
      ready: [`redirect loop: HTTP 302 from ${F}/loop/api/ready back to ${F}/loop/api/ready`],
    },
    {
      name: 'frontend-hangs',
      url: `${F}/hang/`,
      shot: 'fail',
      lines: [`page did not finish loading within ${SHORT}ms`],
      timeout: SHORT,
    },
  ),
  pair(
    { name: 'redirect-elsewhere', url: 'elsewhere', health: ['redirected elsewhere: HTTP 302 to /login'] },
    { name: 'huge-body', url: 'huge', health: ['body too large: more than 65536 bytes'] },
    {
      name: 'frontend-never-loads',
      url: `${F}/slow-page/`,
      shot: 'fail',
      lines: [`page did not finish loading within ${SHORT}ms`],
      timeout: SHORT,
    },
  ),
  // A Location that is no URL, or not an http(s) one, is a bad answer like any other: FAIL with one line.
  pair(
    {
      name: 'redirect-to-port-out-of-range',
      url: 'redirect-bad-port',
      health: ['redirected to an invalid URL: HTTP 302 to http://127.0.0.1:99999/redirect-bad-port/api/health'],
      ready: ['redirected to an invalid URL: HTTP 302 to http://127.0.0.1:99999/redirect-bad-port/api/ready'],
    },
    {
      name: 'redirect-to-unclosed-ipv6',
      url: 'redirect-bad-host',
      health: ['redirected to an invalid URL: HTTP 302 to http://[::1'],
    },
    // A JSON document whose body never ends: Chromium usually cannot paint it, and a failure card stands in
    // (stuckShotLine, below).
    {
      name: 'frontend-json-never-ends',
      url: `${F}/slow-body/`,
      shot: 'fail',
      lines: [`page did not finish loading within ${SHORT}ms`],
      timeout: SHORT,
    },
  ),
  pair(
    {
      name: 'redirect-to-file',
      url: 'redirect-file',
      health: ['redirected to a non-HTTP URL: HTTP 302 to file:///redirect-file/api/health'],
      ready: ['redirected to a non-HTTP URL: HTTP 302 to file:///redirect-file/api/ready'],
    },
    {
      name: 'redirect-to-ftp',
      url: 'redirect-ftp',
      health: ['redirected to a non-HTTP URL: HTTP 302 to ftp://127.0.0.1/redirect-ftp/api/health'],
      ready: ['redirected to a non-HTTP URL: HTTP 302 to ftp://127.0.0.1/redirect-ftp/api/ready'],
    },
    // A healthy page that moves on to another right after loading passes (a capture across the move used to hang).
    { name: 'frontend-meta-refresh', url: `${F}/meta-refresh/`, shot: 'ok', lines: [] },
  ),
  pair(
    {
      name: 'tls-to-plain-port',
      url: `https://127.0.0.1:${FP}/ok`,
      health: [`TLS handshake with 127.0.0.1:${FP} failed (is it plain http?): wrong version number`],
    },
    {
      name: 'connection-reset',
      url: 'reset',
      health: [`connection reset by 127.0.0.1:${FP} before a complete response`],
    },
  ),
  frontend('broken-image', `${F}/broken-image/`, [`request failed: GET ${F}/broken-image/missing.png HTTP 404`]),
  broken(
    'malformed-backend',
    ['--backend', 'localhost:3001'],
    'smoke: --backend "localhost:3001" must be an http:// or https:// URL (expected e.g. http://localhost:3001)',
  ),
  broken(
    'malformed-frontend',
    ['--frontend', 'http://'],
    'smoke: --frontend "http://" is not a valid URL (expected e.g. http://localhost:3000)',
  ),
  broken(
    'malformed-device',
    ['--device', 'device:3003'],
    'smoke: --device "device:3003" must be an http:// or https:// URL (expected e.g. http://localhost:3003)',
  ),
  {
    ...broken(
      'malformed-env-url',
      [],
      'smoke: SMOKE_BACKEND_URL "not a url" is not a valid URL (expected e.g. http://localhost:3001)',
      { SMOKE_BACKEND_URL: 'not a url' },
    ),
    args: ['--frontend', `${F}/`],
  },
  (() => {
    const run = pair(
      { name: 'another-release', url: 'release-v1', health: ['answered by release v1, expected v2'], ready: [] },
      {
        name: 'no-release',
        url: 'ok',
        health: ['answered by no release (the body has no version), expected v2'],
        ready: [],
      },
    );
    return { ...run, args: [...run.args, '--expect-version', 'v2'] };
  })(),
  // Two cases that pass, in one run: the release expected, and a page that throws (listed, not failed).
  frontend('page-throws', `${F}/throws/`, ['page exception: boom from the page'], {
    cases: ['expected-release', 'page-throws'],
    args: ['--backend', `${F}/release-v1`, '--frontend', `${F}/throws/`],
    env: { SMOKE_EXPECT_VERSION: 'v1' },
  }),
  broken(
    'expect-version-bad',
    ['--expect-version', 'v 2'],
    'smoke: --expect-version "v 2" is not a release id: use letters, digits and . _ + - only, ' +
      'starting with a letter or digit',
  ),
  broken('expect-version-empty', ['--expect-version='], 'smoke: --expect-version "" is not a release id: it is empty'),
  broken(
    'expect-version-env-absurd',
    [],
    `smoke: SMOKE_EXPECT_VERSION "${'x'.repeat(40)}…" is not a release id: it is 200 characters long, at most 128`,
    { SMOKE_EXPECT_VERSION: 'x'.repeat(200) },
  ),
  broken(
    'timeout-not-numeric',
    ['--timeout', 'abc'],
    'smoke: --timeout must be a positive whole number of milliseconds, got "abc"',
  ),
  broken(
    'timeout-zero',
    ['--timeout', '0'],
    'smoke: --timeout must be a positive whole number of milliseconds, got "0"',
  ),
  broken(
    'timeout-negative',
    ['--timeout=-5'],
    'smoke: --timeout must be a positive whole number of milliseconds, got "-5"',
  ),
  broken(
    'timeout-missing-value',
    ['--timeout'],
    'smoke: --timeout needs a value (write --timeout=-x for one starting with "-")',
  ),
  broken(
    'wait-not-numeric',
    ['--wait', 'soon'],
    'smoke: --wait must be a non-negative whole number of milliseconds, got "soon"',
  ),
  broken('unknown-option', ['--bogus'], 'smoke: unknown option --bogus (run with --help to list the options)'),
  broken('stray-argument', ['extra'], 'smoke: unexpected argument "extra" (options take the form --name value)'),
  broken(
    'artifacts-is-a-file',
    ['--artifacts', join(base, 'a-file')],
    `smoke: --artifacts ${join(base, 'a-file')} is not a writable directory: EEXIST, a file is in the way`,
  ),
  broken(
    'artifacts-under-a-file',
    ['--artifacts', join(base, 'a-file/shots')],
    `smoke: --artifacts ${join(base, 'a-file/shots')} is not a writable directory: ENOTDIR, a file is in the way`,
  ),
  broken(
    'json-unwritable',
    ['--json', join(base, 'a-file/r.json')],
    `smoke: cannot write --json ${join(base, 'a-file/r.json')}: EEXIST, a file is in the way`,
  ),
  // Two outputs on one path would leave only the last written: refused before anything runs.
  broken(
    'json-and-junit-one-file',
    ['--json', join(base, 'report'), '--junit', join(base, 'report')],
    `smoke: --json ${join(base, 'report')} and --junit ${join(base, 'report')} are the same file; ` +
      'give each its own path',
  ),
  broken(
    'json-is-the-screenshot',
    ['--json', join(base, 'json-is-the-screenshot/frontend-ok.png')],
    `smoke: --json ${join(base, 'json-is-the-screenshot/frontend-ok.png')} and the screenshot ` +
      `${join(base, 'json-is-the-screenshot/frontend-ok.png')} are the same file; give each its own path`,
  ),
  broken(
    'json-is-the-step-summary',
    ['--json', join(base, 'summary.md')],
    `smoke: --json ${join(base, 'summary.md')} and GITHUB_STEP_SUMMARY ${join(base, 'summary.md')} are the same ` +
      'file; give each its own path',
    { GITHUB_STEP_SUMMARY: join(base, 'summary.md') },
  ),
  // Files that open for writing and refuse every write: the up-front check writes (no bytes) to find out.
  broken(
    'junit-proc-version',
    ['--junit', '/proc/version'],
    // Root opens it (and the write fails); anyone else is refused at the open.
    `smoke: cannot write --junit /proc/version: ${ROOT ? 'EIO, input/output error' : 'EACCES, permission denied'}`,
  ),
  broken(
    'json-dev-full',
    ['--json', '/dev/full'],
    'smoke: cannot write --json /dev/full: ENOSPC, no space left on the device',
  ),
  // Node's recursive mkdir never returns on procfs: the check gives up after its bound, and the process exits
  // (within the 20 s every run that cannot happen is held to; a hang would reach runCli's deadline).
  broken(
    'artifacts-under-proc',
    ['--artifacts', '/proc/smoke-x'],
    `smoke: --artifacts /proc/smoke-x is not writable (no answer within ${FS_ANSWER_MS} ms)`,
  ),
  broken(
    'json-under-proc',
    ['--json', '/proc/smoke-x/r.json'],
    `smoke: --json /proc/smoke-x/r.json is not writable (no answer within ${FS_ANSWER_MS} ms)`,
  ),
  broken(
    'junit-under-proc',
    ['--junit', '/proc/smoke-x/r.xml'],
    `smoke: --junit /proc/smoke-x/r.xml is not writable (no answer within ${FS_ANSWER_MS} ms)`,
  ),
  broken('browser-missing', [], `smoke: CHROME_PATH=/nonexistent/chromium is not an executable file; ${HINT}`, {
    CHROME_PATH: '/nonexistent/chromium',
  }),
  {
    ...broken(
      'browser-fails-to-launch',
      [],
      `smoke: could not launch Chromium at ${fakeChrome}: ` +
        `Failed to launch the browser process: Code: 1 (cannot open display); ${HINT}`,
      { CHROME_PATH: fakeChrome },
    ),
    stdout: backendOk, // the HTTP probes ran while the launch was failing
  },
];

// Three Chromiums at once at most; the runs that start none (a few with waits of seconds: /proc, a fake browser)
// run beside them in a pool of their own rather than taking a Chromium's turn.
const browserPool = createPool(3);
const plainPool = createPool(3);
const results = new Map<string, Promise<CliRun>>();
for (const run of runs) {
  const pool = run.shot ? browserPool : plainPool;
  const args = [...run.args];
  // An explicit --timeout or --artifacts is what the case is about; otherwise give each run its own.
  if (!args.some((a) => a.startsWith('--timeout'))) args.push('--timeout', String(run.timeout));
  if (!args.some((a) => a.startsWith('--artifacts'))) args.push('--artifacts', dirOf(run));
  const result = pool(() => runCli(args, { env: run.env ?? {} }));
  result.catch(() => {}); // awaited by its test below
  results.set(nameOf(run), result);
}

test.after(async () => {
  await stopAll();
  await fx.close();
  rmSync(base, { recursive: true, force: true });
});

test('the matrix covers at least 25 cases', () => {
  const names = runs.flatMap((r) => r.cases);
  assert.ok(names.length >= 25, `${names.length} cases`);
  assert.is(new Set(names).size, names.length);
});

/**
 * The picture of a page stuck loading is the page when Chromium paints it within STUCK_SHOT_MS, else a failure card
 * drawn in a fresh tab, else a grey placeholder, each said in one line. Which one depends on the machine: beside two
 * CPU burners a paintable page missed the grace, and a JSON body that never ends, which Chromium usually cannot
 * paint, was painted (29 November 2026). So the line, when there is one, must be one of the two exactly as worded
 * (a page that moves on meanwhile is given its bound again, so the line then says the time it took).
 */
const stuckShotLine = new RegExp(
  `^    screenshot not taken within (?:${STUCK_SHOT_MS}ms|\\d+ms \\(the page moved on .+ meanwhile\\))` +
    '(?:: the page could not be painted, so frontend-fail\\.png is a failure card ' +
    '\\(URL, reason, elapsed time, what was received\\), not the page' +
    '|; failure card not drawn within \\d+ms, so frontend-fail\\.png is a blank grey placeholder, not the page)$',
);

for (const c of runs) {
  const shot = c.shot ? `frontend-${c.shot}.png` : 'no screenshot';
  test(`${nameOf(c)}: exit ${c.code}, exact lines, ${shot}`, async () => {
    const run = await results.get(nameOf(c))!;
    const context = `\n--- stdout\n${run.stdout.join('\n')}\n--- stderr\n${run.stderr.join('\n')}`;
    assert.is(run.code, c.code, `exit code${context}`);
    const stuck = c.stdout.some((l) => l.startsWith('    page did not finish loading within'));
    const stdout = stuck ? run.stdout.filter((l) => !stuckShotLine.test(l)) : run.stdout;
    assert.equal(normalise(stdout), c.stdout, `stdout${context}`);
    // Piped output never carries colour, even without NO_COLOR.
    assert.not.ok(
      run.stdout.some((l) => l.includes('\u001B')),
      'no ANSI codes when piped',
    );
    if (typeof c.stderr === 'function') c.stderr(run.stderr);
    else assert.equal(run.stderr, c.stderr ?? [], `stderr${context}`);

    // Every LOAD line names its picture, and the picture is there.
    for (const line of run.stdout.filter((l) => l.startsWith('[LOAD]'))) {
      const file = /screenshot=(.+)$/.exec(line)?.[1];
      assert.ok(file && file !== 'none' && existsSync(file), `the LOAD line's screenshot exists: ${line}`);
    }
    for (const shot of ['ok', 'fail', 'error'] as const) {
      const file = join(dirOf(c), `frontend-${shot}.png`);
      if (shot === c.shot) {
        assert.ok(existsSync(file), `${file} written`);
        assert.equal(readFileSync(file).subarray(0, 8), PNG_SIGNATURE, 'PNG signature');
      } else assert.not.ok(existsSync(file), `${file} not written`);
    }
  });
}

test.run();
