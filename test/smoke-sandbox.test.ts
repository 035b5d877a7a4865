// Chromium with no usable sandbox: the exit-2 line says what to do, and the sandbox goes off only when asked.
//
// As root (this machine, the containers), the failure is real: the smoke runs as uid 1000 inside 32 nested user
// namespaces (test/support/nested-userns.sh), where Chromium's namespace sandbox cannot start and Chromium itself
// prints "No usable sandbox!". Without root (a CI runner's user) that cannot be set up, so CHROME_PATH points at a
// stub that prints Chromium's own line and exits 1, unless given --no-sandbox, when it runs the real browser.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createFixtureHandler } from './support/fake-http-server.ts';
import { runCli, type CliRun } from './support/run-smoke-cli.ts';
import { CHROMIUM_PATHS, findChromium } from '../smoke/browser.ts';
import { listen } from './support/listen.ts';
import { stopAll } from './support/spawn-process.ts';
import { root } from './support/spawn-service.ts';

const base = mkdtempSync(join(tmpdir(), 'smoke-sandbox-'));
chmodSync(base, 0o777); // uid 1000 writes its profile, tsx cache and screenshots here
const fx = await listen(createFixtureHandler());
const args = (name: string) => [
  '--backend',
  `${fx.url}/ok`,
  '--frontend',
  `${fx.url}/`,
  '--timeout',
  '10000',
  '--artifacts',
  join(base, name),
];

// Chromium's own line (Debian's build, recorded from the real failure below).
const NO_SANDBOX_LINE =
  '[14546:14546:1123/105101.509793:ERROR:content/browser/zygote_host/zygote_host_impl_linux.cc:130] ' +
  'No usable sandbox! If this is a Debian system, please install the chromium-sandbox package to solve this problem. ' +
  'If you are running on Ubuntu 23.10+ or another Linux distro that has disabled unprivileged user namespaces ' +
  'with AppArmor, see ' +
  'https://chromium.googlesource.com/chromium/src/+/main/docs/security/apparmor-userns-restrictions.md. ' +
  'If you want to live dangerously and need an immediate workaround, you can try using --no-sandbox.';

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const real =
  process.getuid?.() === 0 && has('unshare') && has('setpriv') && CHROMIUM_PATHS.slice(0, 2).includes(findChromium());
const browser = real ? findChromium() : join(base, 'chromium-without-sandbox');
if (!real) {
  writeFileSync(
    browser,
    `#!/bin/sh\ncase " $* " in *" --no-sandbox "*) exec '${findChromium()}' "$@";; esac\n` +
      `echo '${NO_SANDBOX_LINE}' >&2\nexit 1\n`,
  );
  chmodSync(browser, 0o755);
}
const home = join(base, 'home');
mkdirSync(home, { mode: 0o777 });
chmodSync(home, 0o777);

/** One smoke run where Chromium's sandbox cannot start. */
function smokeWithoutSandbox(extra: string[], env: Record<string, string> = {}): Promise<CliRun> {
  if (!real) return runCli(extra, { env: { CHROME_PATH: browser, ...env } });
  const wrap = (argv: string[]) => [
    'sh',
    join(root, 'test/support/nested-userns.sh'),
    '32',
    'env',
    `HOME=${home}`,
    `TMPDIR=${base}`,
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
    ...argv,
  ];
  return runCli(extra, { wrap, env });
}

const show = (run: CliRun) =>
  `(${real ? 'real Chromium in nested user namespaces' : 'stub'})\n` +
  `--- stdout\n${run.stdout.join('\n')}\n--- stderr\n${run.stderr.join('\n')}`;

test.after(async () => {
  await stopAll();
  await fx.close();
  rmSync(base, { recursive: true, force: true });
});

test(
  '"No usable sandbox!": exit 2, ' + 'and the line says to set CHROME_PATH or opt out of the sandbox by name',
  async () => {
    const run = await smokeWithoutSandbox(args('refused'));
    assert.is(run.code, 2, show(run));
    const line = run.stderr.find((l) => l.startsWith('smoke: '));
    assert.is(
      line,
      `smoke: could not launch Chromium at ${browser}: ` +
        `Chromium found no usable sandbox ("No usable sandbox!": unprivileged user namespaces are restricted here, ` +
        `as by AppArmor on Ubuntu 23.10+ and GitHub's ubuntu-24.04 runners); ` +
        `set CHROME_PATH to a browser whose sandbox works (e.g. /usr/bin/google-chrome), ` +
        `or run without the sandbox on purpose with --no-sandbox or SMOKE_NO_SANDBOX=1`,
      show(run),
    );
    assert.is(run.stderr.filter((l) => l.startsWith('smoke: ')).length, 1, show(run));
    assert.not.ok(
      run.stdout.some((l) => l.startsWith('[LOAD]')),
      'no LOAD line: the run could not happen',
    );
  },
);

test('--no-sandbox or SMOKE_NO_SANDBOX=1: the same machine passes, and stderr says the sandbox is off', async () => {
  for (const [name, extra, env, said] of [
    ['flag', ['--no-sandbox'], {}, '--no-sandbox'],
    ['env', [], { SMOKE_NO_SANDBOX: '1' }, 'SMOKE_NO_SANDBOX=1'],
  ] as const) {
    const run = await smokeWithoutSandbox([...args(name), ...extra], env);
    assert.is(run.code, 0, show(run));
    assert.is(run.stdout.at(-1), 'smoke: PASS (3/3)', show(run));
    assert.equal(run.stderr, [`smoke: warning: Chromium runs without its sandbox (${said})`], show(run));
  }
});

test('SMOKE_NO_SANDBOX with a value that is not 1/true or 0/false: exit 2, nothing turned off by guess', async () => {
  const run = await runCli(args('bad-env'), { env: { SMOKE_NO_SANDBOX: 'yes please' } });
  assert.is(run.code, 2, show(run));
  assert.equal(run.stderr, [
    'smoke: SMOKE_NO_SANDBOX="yes please" is not valid: ' +
      'set it to 1 (or true) to run Chromium without its sandbox, 0 (or false) or unset to keep it',
  ]);
});

test.run();
