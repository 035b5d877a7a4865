// The smoke CLI as a real process against healthy local stand-ins: --help, env fallbacks, the 3- and 5-probe runs,
// IPv4/IPv6 localhost, --wait on a service that passes late, the JSON/JUnit/step-summary files, colour, and
// Chromium cleanup.
import { test as uvuTest } from 'uvu';
import * as assert from 'uvu/assert';
import type { RequestListener } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFixtureHandler, healthyBody, readyBody } from './support/fake-http-server.ts';
import { cliEnv, createPool, normalise, PNG_SIGNATURE, runCli } from './support/run-smoke-cli.ts';
import type { CliRun, RunOptions } from './support/run-smoke-cli.ts';
import { launchBrowser } from '../smoke/browser.ts';
import { listen, type Listening } from './support/listen.ts';
import { freePort } from '../tools/free-port.ts';
import { spawnProcess, stopAll } from './support/spawn-process.ts';
import { root } from './support/spawn-service.ts';
import { serviceArgs } from './support/compiled-services.ts';
import { waitFor, withDeadline } from './support/deadline.ts';
import { sideBySide } from './support/side-by-side.ts';
import { noticeLine } from '../smoke/wait-notice.ts';

// Each test has its own artifacts, TMPDIR and, where it counts requests, its own recording server. The tests all start
// at once, each awaiting its own runs; every Chromium the file starts (a CLI run's, the XML parser's) takes a turn,
// three at once, so a test waiting for its next run holds no turn and the file takes about as long as its CPU.
const test = sideBySide(uvuTest, Infinity);
const chromiumTurns = createPool(3);
/** A smoke CLI run that starts a Chromium, in its turn. */
// The pages here are healthy and load in tenths of a second, so no test waits this out; beside two CPU burners
// (load 20) one took longer than 5 s to load (29 November 2026), which failed a test about colours.
const PAGE_TIMEOUT = '15000';
const smoke = (args: string[], options?: RunOptions) => chromiumTurns(() => runCli(args, options));

const base = mkdtempSync(join(tmpdir(), 'smoke-cli-'));
const fixture = createFixtureHandler();
const servers: Listening[] = [];
/** A fixture server of the test's own, with the paths it was asked for in `hits`. */
const serve = async (host = '127.0.0.1') => {
  const hits: string[] = [];
  const recording: RequestListener = (req, res) => {
    hits.push(req.url ?? '');
    fixture(req, res);
  };
  const s = await listen(recording, host);
  servers.push(s);
  return Object.assign(s, { hits });
};
const F = (await serve()).url;

uvuTest.after(async () => {
  await stopAll();
  await Promise.all(servers.map((s) => s.close()));
  rmSync(base, { recursive: true, force: true });
});

const dir = (name: string) => join(base, name);
const png = (file: string) => readFileSync(file).subarray(0, 8).equals(PNG_SIGNATURE);
const ok = (kind: string, target: string) => `[${kind}] ${target} ... PASS (Nms)`;
const show = (r: { stdout: string[]; stderr: string[]; notices?: string[] }) =>
  `\n--- stdout\n${r.stdout.join('\n')}\n--- stderr\n${[...(r.notices ?? []), ...r.stderr].join('\n')}`;
/** Live processes whose command line mentions `text` (Chromium's carries its --user-data-dir). */
const processesMentioning = (text: string) =>
  readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
    } catch {
      return false;
    }
  });

test('--help lists every option with its default and fallback, exit 0, no colour when piped', async () => {
  const run = await runCli(['--help']);
  assert.is(run.code, 0);
  const text = run.stdout.join('\n');
  assert.not.match(text, '\u001B');
  for (const expected of [
    /--frontend=<url>\s+frontend URL \(env SMOKE_FRONTEND_URL, default http:\/\/localhost:3000\)/,
    /--backend=<url>\s+backend URL \(env SMOKE_BACKEND_URL, default http:\/\/localhost:3001\)/,
    /--device=<url>\s+device-service URL \(env SMOKE_DEVICE_URL, no default; device probes run only when given\)/,
    /--artifacts=<dir>\s+directory for screenshots \(default \.\/smoke-artifacts\)/,
    /--timeout=<ms>\s+deadline of each probe attempt in ms \(default 10000\)/,
    /--wait=<ms>/,
    /--json=<file>/,
    /--junit=<file>/,
    /--strict\s+fail LOAD/,
    /--no-sandbox\s+run Chromium without its sandbox, only where it cannot start \(env SMOKE_NO_SANDBOX=1\)/,
    /Exit codes: 0 all probes passed, 1 one or more probes failed, 2 the run could not happen/,
  ]) {
    assert.match(text, expected);
  }
});

test(
  '-h prints the same usage; asking for help wins over a mistake on the same line; ' +
    'a mistake alone is one line, exit 2',
  async () => {
    const asks = [['-h'], ['--bogus', '--help'], ['--timeout', '-h']];
    const mistakes = [
      [['--strict=yes'], 'smoke: --strict takes no value'],
      [['--json', '--strict'], 'smoke: --json needs a value (write --json=-x for one starting with "-")'],
    ] as const;
    // No Chromium in any of these: the six processes run side by side.
    const [help, runs] = await Promise.all([
      runCli(['--help']),
      Promise.all([...asks, ...mistakes.map(([args]) => args)].map((args) => runCli([...args]))),
    ]);
    for (const [i, args] of asks.entries()) {
      const run = runs[i]!;
      assert.is(run.code, 0, args.join(' '));
      assert.equal(run.stdout, help.stdout, args.join(' '));
      assert.equal(run.stderr, [], args.join(' '));
    }
    for (const [i, [args, line]] of mistakes.entries()) {
      const run = runs[asks.length + i]!;
      assert.is(run.code, 2, args.join(' '));
      assert.equal([run.stdout, run.stderr], [[], [line]], args.join(' '));
    }
  },
);

test('no --device: three probes in order, smoke: PASS (3/3), Chromium and its profile gone afterwards', async () => {
  const tmp = dir('tmp-3');
  mkdirSync(tmp, { recursive: true });
  const { url, hits } = await serve();
  const run = await smoke(
    ['--backend', `${url}/ok`, '--frontend', `${url}/`, '--artifacts', dir('three'), '--timeout', PAGE_TIMEOUT],
    { env: { TMPDIR: tmp } },
  );
  assert.is(run.code, 0, show(run));
  assert.equal(normalise(run.stdout), [
    ok('HEALTH', 'backend'),
    ok('READY', 'backend'),
    `${ok('LOAD', 'frontend')} screenshot=${dir('three')}/frontend-ok.png`,
    'smoke: PASS (3/3)',
  ]);
  assert.equal(run.stderr, []);
  assert.ok(png(join(dir('three'), 'frontend-ok.png')));
  assert.equal(hits.sort(), ['/', '/ok/api/health', '/ok/api/ready']);
  assert.equal(
    readdirSync(tmp).filter((n) => n.startsWith('smoke-chromium-')),
    [],
    'temporary Chromium profile removed',
  );
  assert.equal(processesMentioning(tmp), [], 'no Chromium left running');
});

test('a page that takes 1.5 s to answer: stderr says what the smoke waits for, stdout is unchanged', async () => {
  const slow = await listen((_req, res) => {
    const page = '<!doctype html><title>t</title><link rel="icon" href="data:,"><h1>up, slowly</h1>';
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page), 1500);
  });
  servers.push(slow);
  const run = await smoke(['--backend', `${F}/ok`, '--frontend', `${slow.url}/`, '--artifacts', dir('slow')]);
  assert.is(run.code, 0, show(run));
  assert.equal(normalise(run.stdout), [
    ok('HEALTH', 'backend'),
    ok('READY', 'backend'),
    `${ok('LOAD', 'frontend')} screenshot=${dir('slow')}/frontend-ok.png`,
    'smoke: PASS (3/3)',
  ]);
  // Over a second on the page alone, whatever the machine: its notice always comes (others may, on a slow one).
  assert.ok(run.notices.includes('smoke: waiting for the page to load in Chromium ([LOAD] frontend)'), show(run));
  assert.equal(run.stderr, [], 'nothing else on stderr');
});

/**
 * Five probes, by flags, while every SMOKE_*_URL names a closed port: the run the five-probe test reads and the one
 * in which flags win, started once for both (each CLI run costs a Chromium).
 */
let fiveProbes: Promise<CliRun> | undefined;
const fiveProbeRun = () =>
  (fiveProbes ??= freePort().then((refused) =>
    smoke(['--backend', `${F}/ok`, '--device', `${F}/ok`, '--frontend', `${F}/`, '--artifacts', dir('five')], {
      env: {
        SMOKE_BACKEND_URL: `http://127.0.0.1:${refused}`,
        SMOKE_DEVICE_URL: `http://127.0.0.1:${refused}`,
        SMOKE_FRONTEND_URL: `http://127.0.0.1:${refused}/`,
      },
    }),
  ));

test('with --device: five probes, backend then device then frontend, smoke: PASS (5/5)', async () => {
  const run = await fiveProbeRun();
  assert.is(run.code, 0, show(run));
  assert.equal(normalise(run.stdout), [
    ok('HEALTH', 'backend'),
    ok('READY', 'backend'),
    ok('HEALTH', 'device'),
    ok('READY', 'device'),
    `${ok('LOAD', 'frontend')} screenshot=${dir('five')}/frontend-ok.png`,
    'smoke: PASS (5/5)',
  ]);
});

test('SMOKE_BACKEND_URL, SMOKE_DEVICE_URL, SMOKE_FRONTEND_URL apply when the flags are absent; flags win', async () => {
  const { url, hits } = await serve();
  const [fromEnv, flags] = await Promise.all([
    smoke(['--artifacts', dir('env'), '--timeout', PAGE_TIMEOUT], {
      env: { SMOKE_BACKEND_URL: `${url}/ok`, SMOKE_DEVICE_URL: `${url}/ok`, SMOKE_FRONTEND_URL: `${url}/ok/` },
    }),
    fiveProbeRun(),
  ]);
  assert.is(fromEnv.code, 0, show(fromEnv));
  assert.is(fromEnv.stdout.at(-1), 'smoke: PASS (5/5)');
  // Backend and device answer on the same fixture: each probe path twice.
  assert.equal(hits.sort(), ['/ok/', '/ok/api/health', '/ok/api/health', '/ok/api/ready', '/ok/api/ready']);
  assert.is(flags.code, 0, show(flags));
  assert.is(flags.stdout.at(-1), 'smoke: PASS (5/5)');
});

test('localhost works for a service bound only to ::1 and one bound only to 127.0.0.1', async () => {
  const runs = ['::1', '127.0.0.1'].map(async (host) => {
    const s = await serve(host);
    const url = `http://localhost:${s.port}`;
    const args = ['--backend', `${url}/ok`, '--device', `${url}/ok`, '--frontend', `${url}/`];
    return { host, run: await smoke([...args, '--artifacts', dir(`lo-${host}`), '--timeout', PAGE_TIMEOUT]) };
  });
  for (const { host, run } of await Promise.all(runs)) {
    assert.is(run.code, 0, `${host}${show(run)}`);
    assert.is(run.stdout.at(-1), 'smoke: PASS (5/5)');
  }
});

test('--wait: a backend that resets at first, then is unready for two tries, ends in PASS, flaky', async () => {
  // Counted, not timed: the first /api/health is cut off, the first two /api/ready answer 503.
  const asked = { health: 0, ready: 0 };
  const json = join(dir('wait'), 'out', 'smoke.json');
  const junit = join(dir('wait'), 'out', 'smoke.xml');
  const server = await listen((req, res) => {
    if (req.url === '/api/health' && ++asked.health === 1) return req.socket.destroy();
    if (req.url === '/api/health')
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(healthyBody()));
    if (req.url === '/api/ready' && ++asked.ready <= 2) {
      return res
        .writeHead(503, { 'content-type': 'application/json' })
        .end(JSON.stringify(readyBody('not ready', { database: 'disconnected' })));
    }
    if (req.url === '/api/ready')
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(readyBody()));
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>late but up</h1>');
  });
  servers.push(server);
  const run = await smoke([
    '--backend',
    server.url,
    '--frontend',
    `${server.url}/`,
    '--wait',
    '60000',
    '--timeout',
    PAGE_TIMEOUT,
    '--artifacts',
    dir('wait'),
    '--json',
    json,
    '--junit',
    junit,
  ]);
  assert.is(run.code, 0, show(run));
  // Each retried pass says so on its line, after the contract's form, and what its last failed attempt said.
  assert.equal(normalise(run.stdout), [
    `${ok('HEALTH', 'backend')} after 2 attempts`,
    `    attempt 1 failed: connection reset by 127.0.0.1:${server.port} before a complete response`,
    `${ok('READY', 'backend')} after 3 attempts`,
    '    attempt 2 failed: HTTP 503 Service Unavailable; checks: database=disconnected',
    `${ok('LOAD', 'frontend')} screenshot=${dir('wait')}/frontend-ok.png`,
    'smoke: PASS (3/3)',
  ]);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  assert.equal(
    report.probes.map((p: { kind: string; attempts: number }) => [p.kind, p.attempts]),
    [
      ['HEALTH', 2],
      ['READY', 3],
      ['LOAD', 1],
    ],
    'each probe tried again until it passed, and no more',
  );
  assert.is(report.flaky, 2);
  assert.equal(
    report.probes.map((p: { flaky: boolean }) => p.flaky),
    [true, true, false],
  );
  assert.is(readFileSync(junit, 'utf8').match(/<flakyFailure /g)?.length, 2);
});

test("--wait gives up at its deadline with the last attempt's reason and the attempt count", async () => {
  const run = await smoke([
    '--backend',
    `${F}/not-ready`,
    '--frontend',
    `${F}/`,
    '--wait',
    '2500',
    // The LOAD probe must pass: it starts when Chromium has, under load past the wait, and then has one attempt.
    '--timeout',
    PAGE_TIMEOUT,
    '--artifacts',
    dir('wait-fail'),
  ]);
  assert.is(run.code, 1, show(run));
  const lines = normalise(run.stdout);
  assert.equal(lines.slice(0, 3), [
    ok('HEALTH', 'backend'),
    '[READY] backend ... FAIL (Nms)',
    '    HTTP 503 Service Unavailable',
  ]);
  assert.is(lines[3], '    checks: database=disconnected');
  assert.match(lines[4]!, /^ {4}gave up after \d+ attempts$/);
  assert.ok(Number(/(\d+) attempts/.exec(lines[4]!)![1]) > 1, `retried until the deadline: ${lines[4]}`);
  assert.is(lines.at(-1), 'smoke: FAIL (1/3 failed)', show(run));
});

/** A JUnit file as Chromium's XML parser reads it: the suite's counts and each case's failure message. */
async function parseInChromium(xml: string) {
  const launched = await withDeadline(launchBrowser(), 30_000, 'Chromium for XML parsing');
  try {
    const page = await launched.browser.newPage();
    return await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'application/xml');
      if (doc.querySelector('parsererror')) return { error: doc.querySelector('parsererror')!.textContent };
      const suite = doc.documentElement;
      return {
        suite: [suite.tagName, suite.getAttribute('tests'), suite.getAttribute('failures')],
        cases: [...doc.querySelectorAll('testcase')].map((c) => [
          c.getAttribute('name'),
          c.querySelector('failure')?.getAttribute('message') ?? null,
        ]),
      };
    }, xml);
  } finally {
    await launched.close();
  }
}

test('--json, --junit and GITHUB_STEP_SUMMARY: written, and they parse back to the same run', async () => {
  const json = join(dir('reports'), 'out', 'smoke.json');
  const junit = join(dir('reports'), 'out', 'smoke.xml');
  const summary = join(base, 'step-summary.md');
  writeFileSync(summary, '## earlier step\n');
  const args = [
    '--backend',
    `${F}/not-ready`,
    '--frontend',
    `${F}/`,
    '--artifacts',
    dir('reports'),
    '--timeout',
    PAGE_TIMEOUT,
    '--json',
    json,
    '--junit',
    junit,
  ];
  const run = await smoke(args, { env: { GITHUB_STEP_SUMMARY: summary } });
  assert.is(run.code, 1, show(run));

  const report = JSON.parse(readFileSync(json, 'utf8'));
  assert.equal([report.result, report.passed, report.failed, report.total], ['FAIL', 2, 1, 3]);
  assert.equal(
    report.probes.map((p: { kind: string; target: string; result: string }) => `${p.kind} ${p.target} ${p.result}`),
    ['HEALTH backend PASS', 'READY backend FAIL', 'LOAD frontend PASS'],
  );
  assert.is(report.probes[1].url, `${F}/not-ready/api/ready`);
  assert.is(report.probes[1].reason, 'HTTP 503 Service Unavailable; checks: database=disconnected');
  assert.is(report.probes[2].screenshot, join(dir('reports'), 'frontend-ok.png'));
  assert.ok(report.probes.every((p: { ms: unknown }) => typeof p.ms === 'number'));

  // A real XML parser (Chromium's) reads the JUnit file back.
  const parsed = await chromiumTurns(() => parseInChromium(readFileSync(junit, 'utf8')));
  assert.equal(parsed, {
    suite: ['testsuite', '3', '1'],
    cases: [
      ['HEALTH backend', null],
      ['READY backend', 'HTTP 503 Service Unavailable; checks: database=disconnected'],
      ['LOAD frontend', null],
    ],
  });

  const md = readFileSync(summary, 'utf8').split('\n');
  assert.is(md[0], '## earlier step', 'appended, not overwritten');
  assert.is(md[1], '### smoke: FAIL (1/3 failed)');
  assert.is(md.filter((l) => l.startsWith('| ')).length, 4);
  assert.ok(
    md.includes(
      '| READY | backend | ❌ FAIL | ' +
        report.probes[1].ms +
        ' | `HTTP 503 Service Unavailable; checks: database=disconnected` |',
    ),
  );
});

test(
  'colour on a terminal only: PASS is green on a TTY, plain with NO_COLOR; ' + 'the text is otherwise identical',
  async () => {
    // Each run has artifacts of its own: the two run at once.
    const probes = ['--backend', `${F}/ok`, '--frontend', `${F}/`, '--timeout', PAGE_TIMEOUT];
    const args = (name: string) => [...probes, '--artifacts', dir(name)];
    // `script` gives the CLI a pseudo-terminal as stdout, as a person at a shell would.
    const wrap = (argv: string[]) => ['script', '-qfec', argv.map((a) => `'${a}'`).join(' '), '/dev/null'];
    const [coloured, plain] = await Promise.all([
      smoke(args('tty'), { wrap }),
      smoke(args('tty-plain'), { wrap, env: { NO_COLOR: '1' } }),
    ]);
    assert.is(coloured.code, 0, show(coloured));
    const text = coloured.stdout.join('\n');
    assert.match(text, '[HEALTH] backend ... \u001B[32mPASS\u001B[39m (');
    assert.match(text, 'smoke: \u001B[32mPASS\u001B[39m (3/3)');
    assert.is(plain.code, 0, show(plain));
    assert.not.match(plain.stdout.join('\n'), '\u001B');
    // The terminal carries stderr too: a notice of a slow wait (Chromium closing, on a busy machine) may follow.
    const lines = plain.stdout.map((l) => l.replace(/\r$/, '')).filter((l) => !l.startsWith(noticeLine('')));
    assert.is(lines.at(-1), 'smoke: PASS (3/3)');
  },
);

// Its CLI starts a Chromium: the test takes a turn for it.
test('SIGTERM mid-run closes Chromium, removes its profile and exits 143', () =>
  chromiumTurns(async () => {
    const tmp = dir('tmp-term');
    mkdirSync(tmp, { recursive: true });
    const { url, hits } = await serve();
    const args = [
      ...(await serviceArgs(root, 'smoke/cli.ts')),
      '--backend',
      `${url}/ok`,
      '--frontend',
      `${url}/hang/`,
      '--timeout',
      '60000',
      '--artifacts',
      dir('term'),
    ];
    const proc = spawnProcess(process.execPath, args, { cwd: root, env: cliEnv({ TMPDIR: tmp }) });
    // The profile directory appears once Chromium is starting; its request for the hanging page shows the launch is
    // done and the run is mid-navigation, which is the moment SIGTERM must handle.
    const pageRequestsBefore = hits.filter((url) => url === '/hang/').length;
    await waitFor(
      () => readdirSync(tmp).some((n) => n.startsWith('smoke-chromium-')) && processesMentioning(tmp).length > 0,
      { timeout: 30_000, what: 'Chromium running' },
    );
    await waitFor(() => proc.stdout.length >= 2, { timeout: 10_000, what: 'HTTP probe lines' });
    await waitFor(() => hits.filter((url) => url === '/hang/').length > pageRequestsBefore, {
      timeout: 30_000,
      what: 'Chromium requesting the page',
    });
    proc.signal('SIGTERM');
    const code = await proc.waitExit(15_000);
    assert.is(code, 143, proc.lines.join('\n'));
    assert.ok(proc.stderr.includes('smoke: interrupted by SIGTERM'));
    await waitFor(() => processesMentioning(tmp).length === 0, { timeout: 5000, what: 'Chromium gone' });
    assert.not.ok(
      readdirSync(tmp).some((n) => n.startsWith('smoke-chromium-')),
      'profile removed',
    );
    assert.not.ok(existsSync(join(dir('term'), 'frontend-ok.png')));
  }));

test("a URL's password and secret query values are printed and written as ***, never as given", async () => {
  const json = join(dir('secrets'), 'smoke.json');
  const junit = join(dir('secrets'), 'smoke.xml');
  const backend = `${F.replace('//', '//ci:S3cret-Pa55@')}/not-ready`;
  const frontend = `${F}/console-error/?access_token=T0ken-Value`;
  const args = ['--backend', backend, '--frontend', frontend, '--artifacts', dir('secrets'), '--timeout', PAGE_TIMEOUT];
  // Nothing listens for the second run: the LOAD probe's exception, whose message and stack on stderr quote the
  // page's URL. The third is refused at its URL. The three run at once, each with artifacts of its own.
  const closed = `http://127.0.0.1:${await freePort()}/?access_token=T0ken-Value`;
  const [run, thrown, refused] = await Promise.all([
    smoke([...args, '--json', json, '--junit', junit]),
    smoke(['--backend', `${F}/ok`, '--frontend', closed, '--artifacts', dir('secrets-thrown')]),
    runCli(['--frontend', 'ftp://ci:S3cret-Pa55@x/', '--artifacts', dir('secrets-refused')]),
  ]);
  assert.is(run.code, 1, show(run));
  const written = [...run.stdout, ...run.stderr, readFileSync(json, 'utf8'), readFileSync(junit, 'utf8')].join('\n');
  assert.not.match(written, /S3cret-Pa55|T0ken-Value/);
  const shown = `${F.replace('//', '//ci:***@')}/not-ready`;
  assert.equal(
    JSON.parse(readFileSync(json, 'utf8')).probes.map((p: { url: string }) => p.url),
    [`${shown}/api/health`, `${shown}/api/ready`, `${F}/console-error/?access_token=***`],
  );
  assert.match(readFileSync(junit, 'utf8'), `url: ${shown}/api/ready`);

  assert.is(thrown.code, 1, show(thrown));
  assert.match(thrown.stderr.join('\n'), /ERR_CONNECTION_REFUSED at http:\/\/127\.0\.0\.1:\d+\/\?access_token=\*\*\*/);
  assert.not.match([...thrown.stdout, ...thrown.stderr].join('\n'), 'T0ken-Value');

  assert.is(refused.code, 2, show(refused));
  assert.not.match(refused.stderr.join('\n'), 'S3cret-Pa55');
  assert.match(refused.stderr.join('\n'), '"ftp://ci:***@x/"');
});

uvuTest.run();
