// `npm start`: the real four parts on free ports, the smoke's five PASS lines, clean exits, and fast failures.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './support/deadline.ts';
import { freePort } from '../tools/free-port.ts';
import { listen } from './support/listen.ts';
import { spawnProcess, stopAll, type Spawned } from './support/spawn-process.ts';
import { root } from './support/spawn-service.ts';
import { compiledEntriesEnv, serviceArgs } from './support/compiled-services.ts';
import { portProblem } from '../dev/local-stack/ports.ts';
import { readSmokeResult } from '../smoke/result.ts';
import { sideBySide } from './support/side-by-side.ts';

const suiteOfStack = suite('stack');
// Each test runs stacks of its own on ports of its own: three tests' processes run at once, each test awaiting its
// own, so the file takes about as long as its longest tests rather than their sum.
const test = sideBySide(suiteOfStack, 3);
const artifacts = mkdtempSync(join(tmpdir(), 'stack-test-'));
const seenPids: number[] = [];

async function stackEnv(extra: Record<string, string> = {}) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BACKEND_PORT: String(await freePort()),
    DEVICE_PORT: String(await freePort()),
    FRONTEND_PORT: String(await freePort()),
    MONGO_PORT: String(await freePort()),
    SMOKE_ARTIFACTS: artifacts,
    // Not the repository's ./spool: a stack per test, none inheriting another's unacknowledged readings.
    DEVICE_SPOOL_DIR: mkdtempSync(join(artifacts, 'spool-')),
    ...(await compiledEntriesEnv(root)), // the services and the smoke the stack starts, compiled as the stack is
    // Every probe here must pass: its page has to load in a Chromium that starts while this file's other stacks
    // start beside it (10 s, the default, was missed with two copies of this file at once at a load average of 24).
    SMOKE_TIMEOUT_MS: '30000',
    ...extra,
  };
  // NO_COLOR too: the test runner sets it, and the stack must leave out colour on its own when piped.
  for (const key of [
    'MONGODB_URI',
    'HOST',
    'PORT',
    'STACK_READY_TIMEOUT_MS',
    'NO_COLOR',
    'FORCE_COLOR',
    'LOG_SINGLE_LINE',
  ])
    if (!(key in extra)) delete env[key];
  return env;
}

/** The node arguments of `npm start`'s dev/stack.ts, compiled (test/support/compiled-services.ts). */
const stackArgs = () => serviceArgs(root, 'dev/stack.ts');

const MAX_LINES = 40;
const ESC = '\u001b';
/** The services' pino lines (`backend  | …`, `device   | …`), without the prefix. */
const serviceLogLines = (lines: string[]) =>
  lines
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => /^(backend|device) +\| /.test(line))
    .map((line) => line.replace(/^\w+ +\| /, ''));
/** One entry per line: each starts with pino-pretty's time and level, none is an indented field or a brace. */
const PRETTY_ENTRY = /^(\u001b\[[\d;]*m)*\[\d\d:\d\d:\d\d\.\d{3}\] (\u001b\[[\d;]*m)*(INFO|WARN|ERROR|DEBUG)/;

/** The pids the stack announced (`stack: backend started (pid N)`), by name. */
function childPids(proc: Spawned): Map<string, number> {
  const pids = new Map<string, number>();
  for (const line of proc.stdout) {
    const match = /^stack: (\w+) started \(pid (\d+)\)$/.exec(line);
    if (match) pids.set(match[1]!, Number(match[2]));
  }
  seenPids.push(...pids.values());
  return pids;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};
const output = (proc: Spawned) => proc.lines.join('\n');
const PROBES = ['[HEALTH] backend', '[READY] backend', '[HEALTH] device', '[READY] device', '[LOAD] frontend'];

// Once all are done, not after each: the tests run side by side, and stopAll() would stop the others' processes.
suiteOfStack.after(async () => {
  await stopAll();
  for (const pid of seenPids.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL'); // never leave a service behind
  rmSync(artifacts, { recursive: true, force: true });
});

test(
  'npm start -- --once: four parts up, five PASS lines, smoke: PASS (5/5) and its result in SMOKE_JSON, exit 0, ' +
    'nothing left running',
  async () => {
    const smokeJson = join(artifacts, 'result.json');
    const env = await stackEnv({ SMOKE_JSON: smokeJson });
    const proc = spawnProcess('npm', ['start', '--', '--once'], { cwd: root, env });
    const code = await proc.waitExit(180_000);
    assert.is(code, 0, output(proc));
    const probeLines = proc.stdout.filter((line) => /^\[\w+\] \w+ \.\.\. /.test(line));
    assert.equal(
      probeLines.map((line) => line.split(' ... ')[0]),
      PROBES,
      output(proc),
    );
    for (const line of probeLines) assert.match(line, / \.\.\. PASS \(\d+ms\)/);
    assert.ok(proc.stdout.includes('smoke: PASS (5/5)'), output(proc));
    const read = await readSmokeResult(smokeJson);
    assert.ok(read.ok && read.result.result === 'PASS' && read.result.total === 5, JSON.stringify(read));
    assert.ok(
      proc.stdout.some((line) => /^stack: database: .*(stand-in, not a database|mongod from)/.test(line)),
      'the database is announced',
    );
    assert.ok(
      proc.stdout.some((line) => line.startsWith('backend  | ')),
      'service output is prefixed with its name',
    );
    // Piped (as `npm start -- --once | cat`): no escape codes, one line per log entry, and short.
    assert.not.match(output(proc), ESC, 'no escape codes when piped');
    const logLines = serviceLogLines(proc.lines);
    assert.ok(logLines.length >= 4, output(proc));
    for (const line of logLines) assert.match(line, PRETTY_ENTRY, `one line per entry: ${line}`);
    assert.not.ok(
      proc.lines.some((line) => /request completed|GET \/\S* 200 \d+ms/.test(line)),
      "the stack's own polls and the smoke's requests are not printed",
    );
    // npm's own warnings (about the machine's npm settings) are not the stack's to answer for, and the smoke's notices
    // of a wait over a second (smoke/wait-notice.ts) come only on a machine slow enough to need them; so do the
    // backend's devices check going `behind` and back (its device thread lagging on a busy machine).
    // Lines only a busy machine prints: waits said, the devices check behind and back, the device's first
    // connect refused while the backend (which starts its device thread first) is not yet listening, and the
    // backend's first server selection missing its 2 s (seen in CI beside the typecheck: the retry said, and a
    // device's presence write meanwhile failed; the database connected a second later).
    const slowMachine = (line: string) =>
      line.startsWith('smoke: waiting for ') ||
      /readiness: devices is behind|"previous":"behind"|backend socket unavailable; retrying/.test(line) ||
      /database unreachable; retrying|writes? of device presence failed/.test(line);
    const count = proc.lines.filter(
      (line, i, all) => !line.startsWith('npm warn ') && !slowMachine(line) && (line !== '' || i < all.length - 1),
    ).length;
    assert.ok(count <= MAX_LINES, `${count} lines printed, at most ${MAX_LINES}:\n${output(proc)}`);
    const pids = childPids(proc);
    assert.equal([...pids.keys()].sort(), ['backend', 'database', 'device', 'frontend']);
    for (const [name, pid] of pids) assert.not.ok(alive(pid), `${name} (pid ${pid}) still running`);
    for (const key of ['BACKEND_PORT', 'DEVICE_PORT', 'FRONTEND_PORT', 'MONGO_PORT']) {
      assert.is(await portProblem(Number(env[key])), undefined, `${key} ${env[key]} is free again`);
    }
  },
);

test('a bad argument: one line pointing at --help, exit 2, nothing started', async () => {
  for (const [arg, line] of [
    ['--onse', 'stack: unknown option --onse (run with --help to list the options)'],
    ['--once=yes', 'stack: --once takes no value (npm start -- --help for the usage)'],
  ]) {
    const proc = spawnProcess(process.execPath, [...(await stackArgs()), arg!], {
      cwd: root,
      env: await stackEnv(),
    });
    assert.is(await proc.waitExit(30_000), 2, arg);
    assert.equal(proc.stdout.filter(Boolean), [], arg);
    assert.equal(proc.stderr.filter(Boolean), [line], arg);
  }
});

test('a port already in use: fails before starting anything, naming the service and the port', async () => {
  const env = await stackEnv();
  const taken = await listen((_, res) => res.end('someone else'));
  env.DEVICE_PORT = String(taken.port);
  try {
    const proc = spawnProcess(process.execPath, [...(await stackArgs()), '--once'], { cwd: root, env });
    const code = await proc.waitExit(60_000);
    assert.is(code, 3, output(proc));
    assert.ok(
      proc.stderr.includes(
        `stack: device cannot start: port ${taken.port} is already in use (stop what uses it, or set DEVICE_PORT)`,
      ),
      output(proc),
    );
    assert.equal(childPids(proc).size, 0, 'no child was started: it checked the ports first');
  } finally {
    await taken.close();
  }
});

test('a service that crashes: one line naming it, its last log lines, every child stopped, exit 3', async () => {
  const proc = spawnProcess(process.execPath, [...(await stackArgs()), '--once'], {
    cwd: root,
    env: await stackEnv({ MONGODB_URI: 'not-a-uri' }),
  });
  const code = await proc.waitExit(60_000);
  assert.is(code, 3, output(proc));
  const reason = proc.stderr.findIndex((line) => line === 'stack: backend exited (code 1) before the stack was ready');
  assert.ok(reason >= 0, output(proc));
  assert.match(
    proc.stderr.slice(reason + 1).join('\n'),
    /last log lines of backend:\n {4}backend: MONGODB_URI=not-a-uri is not valid/,
  );
  const pids = childPids(proc);
  assert.equal([...pids.keys()].sort(), ['backend', 'device', 'frontend'], 'MONGODB_URI given: no database child');
  for (const [name, pid] of pids) assert.not.ok(alive(pid), `${name} (pid ${pid}) still running`);
});

test('a service that never becomes ready: the deadline names it and what it last answered', async () => {
  const closed = await freePort();
  // The deadline must outlast the backend's start-up, so that what it last answered is its 503: three services
  // starting at once on a loaded machine were seen to take over 6 s to listen (the reason was then ECONNREFUSED),
  // and over 15 s with this file's other stacks starting beside them. The wait passes while those tests run.
  const deadlineMs = 30_000;
  const proc = spawnProcess(process.execPath, [...(await stackArgs()), '--once'], {
    cwd: root,
    env: await stackEnv({
      MONGODB_URI: `mongodb://127.0.0.1:${closed}/app`,
      STACK_READY_TIMEOUT_MS: String(deadlineMs),
    }),
  });
  const code = await proc.waitExit(60_000);
  assert.is(code, 3, output(proc));
  assert.match(
    output(proc),
    new RegExp(
      `^stack: backend not ready within ${deadlineMs} ms ` +
        `\\(http://127\\.0\\.0\\.1:\\d+/api/ready: HTTP 503 .*disconnected`,
      'm',
    ),
    output(proc),
  );
  for (const [name, pid] of childPids(proc)) assert.not.ok(alive(pid), `${name} (pid ${pid}) still running`);
});

test(
  "on a terminal the services' log lines are coloured, still one line per entry; " + 'NO_COLOR turns colour off',
  async () => {
    // `script` gives the stack a pseudo-terminal as stdout, as a person at a shell would; its children stay piped.
    const command = [process.execPath, ...(await stackArgs()), '--once'].map((word) => `'${word}'`).join(' ');
    const wrap = ['-qfec', command, '/dev/null'];
    // Two stacks of their own, side by side: coloured, and with NO_COLOR.
    const [coloured, plain] = [
      spawnProcess('script', wrap, { cwd: root, env: await stackEnv() }),
      spawnProcess('script', wrap, { cwd: root, env: await stackEnv({ NO_COLOR: '1' }) }),
    ];
    const [colouredCode, plainCode] = await Promise.all([coloured.waitExit(180_000), plain.waitExit(180_000)]);
    assert.is(colouredCode, 0, output(coloured));
    const lines = serviceLogLines(coloured.lines);
    assert.ok(lines.length >= 4, output(coloured));
    for (const line of lines) assert.match(line, PRETTY_ENTRY, `one line per entry: ${JSON.stringify(line)}`);
    assert.ok(
      lines.every((line) => line.includes(ESC)),
      'every service log line is coloured on a terminal',
    );
    childPids(coloured);

    assert.is(plainCode, 0, output(plain));
    assert.ok(serviceLogLines(plain.lines).length >= 4, output(plain));
    assert.not.match(output(plain), ESC, 'NO_COLOR: no escape codes even on a terminal');
    childPids(plain);
  },
);

for (const [signal, toGroup] of [
  ['SIGINT', true],
  ['SIGTERM', false],
] as const) {
  test(
    `running until ${signal}${toGroup ? ' to the terminal group (Ctrl-C)' : ''}: ` + `every child stopped, exit 0`,
    async () => {
      const proc = spawnProcess(process.execPath, [...(await stackArgs())], {
        cwd: root,
        env: await stackEnv(),
      });
      await waitFor(() => proc.stdout.some((line) => line.startsWith('stack: running (smoke exit 0)')), {
        timeout: 120_000,
        interval: 100,
        what: 'the stack running after its smoke',
      });
      const pids = childPids(proc);
      assert.is(pids.size, 4);
      for (const [name, pid] of pids) assert.ok(alive(pid), `${name} runs until the signal`);
      if (toGroup) process.kill(-proc.pid, signal);
      else proc.signal(signal);
      const code = await proc.waitExit(30_000);
      assert.is(code, 0, output(proc));
      assert.ok(proc.stdout.includes('stack: stopped (exit 0)'), output(proc));
      assert.not.match(output(proc), /did not stop cleanly/);
      for (const [name, pid] of pids) assert.not.ok(alive(pid), `${name} (pid ${pid}) still running`);
    },
  );
}

suiteOfStack.run();
