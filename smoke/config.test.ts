// Options → config: environment fallbacks, defaults, and a one-line CLIError for every bad value.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULTS, parseSmokeArgs, resolveConfig, type RawOptions } from './config.ts';
import { CLIError } from '../tools/cli-error.ts';

const env = { CHROME_PATH: '/usr/bin/chromium' };

function rejects(run: () => unknown, message: string) {
  let error: unknown;
  try {
    run();
  } catch (e) {
    error = e;
  }
  assert.instance(error, CLIError, `expected a CLIError: ${message}`);
  assert.is((error as Error).message, message);
}

test('defaults: frontend :3000, backend :3001, no device, ./smoke-artifacts, 10 s, no wait', () => {
  const config = resolveConfig({}, env);
  assert.equal(config, {
    frontend: 'http://localhost:3000/',
    backend: 'http://localhost:3001/',
    device: null,
    expectVersion: null,
    artifacts: './smoke-artifacts',
    timeout: 10_000,
    wait: 0,
    json: null,
    junit: null,
    strict: false,
    operatorToken: null,
    chromePath: '/usr/bin/chromium',
    noSandbox: null,
    ca: null,
  });
  assert.is(DEFAULTS.timeout, 10_000);
});

test('the sandbox goes off only by name: --no-sandbox, or SMOKE_NO_SANDBOX=1/true; 0/false/empty keep it', () => {
  assert.is(resolveConfig({ sandbox: false }, env).noSandbox, '--no-sandbox');
  assert.is(resolveConfig({ sandbox: true }, env).noSandbox, null);
  for (const value of ['1', 'true', 'TRUE'])
    assert.is(resolveConfig({}, { ...env, SMOKE_NO_SANDBOX: value }).noSandbox, 'SMOKE_NO_SANDBOX=1', value);
  for (const value of ['0', 'false', ''])
    assert.is(resolveConfig({}, { ...env, SMOKE_NO_SANDBOX: value }).noSandbox, null, value);
  rejects(
    () => resolveConfig({}, { ...env, SMOKE_NO_SANDBOX: 'yes' }),
    'SMOKE_NO_SANDBOX="yes" is not valid: set it to 1 (or true) to run Chromium without its sandbox, ' +
      '0 (or false) or unset to keep it',
  );
});

test('SMOKE_FRONTEND_URL and SMOKE_BACKEND_URL fill in when the flags are absent; flags win', () => {
  const fromEnv = { ...env, SMOKE_FRONTEND_URL: 'http://web.test:8080', SMOKE_BACKEND_URL: 'https://api.test/base' };
  const config = resolveConfig({}, fromEnv);
  assert.is(config.frontend, 'http://web.test:8080/');
  assert.is(config.backend, 'https://api.test/base');
  const flags = resolveConfig({ frontend: 'http://127.0.0.1:1', backend: 'http://127.0.0.1:2' }, fromEnv);
  assert.is(flags.frontend, 'http://127.0.0.1:1/');
  assert.is(flags.backend, 'http://127.0.0.1:2/');
  // An empty variable, as CI templates often produce, counts as unset.
  assert.is(resolveConfig({}, { ...env, SMOKE_BACKEND_URL: '' }).backend, DEFAULTS.backend + '/');
});

test('the device service: --device, else SMOKE_DEVICE_URL, turns its probes on; neither (nor empty) does not', () => {
  assert.is(resolveConfig({}, { ...env, SMOKE_DEVICE_URL: 'http://x.test:3003' }).device, 'http://x.test:3003/');
  assert.is(resolveConfig({ device: 'http://[::1]:3003' }, env).device, 'http://[::1]:3003/');
  assert.is(
    resolveConfig({ device: 'http://[::1]:3003' }, { ...env, SMOKE_DEVICE_URL: 'http://x.test' }).device,
    'http://[::1]:3003/',
  );
  assert.is(resolveConfig({}, env).device, null);
  assert.is(resolveConfig({}, { ...env, SMOKE_DEVICE_URL: '' }).device, null);
});

test('--expect-version, else SMOKE_EXPECT_VERSION (blank: unset), held to the release-id rule', () => {
  const sha = '0123456789abcdef0123456789abcdef01234567';
  assert.is(resolveConfig({ 'expect-version': sha }, env).expectVersion, sha);
  assert.is(resolveConfig({}, { ...env, SMOKE_EXPECT_VERSION: ' v1.2.0 ' }).expectVersion, 'v1.2.0');
  assert.is(resolveConfig({ 'expect-version': 'v2' }, { ...env, SMOKE_EXPECT_VERSION: 'v1' }).expectVersion, 'v2');
  assert.is(resolveConfig({}, { ...env, SMOKE_EXPECT_VERSION: '  ' }).expectVersion, null);
  rejects(() => resolveConfig({ 'expect-version': '' }, env), '--expect-version "" is not a release id: it is empty');
  rejects(
    () => resolveConfig({ 'expect-version': 'release 2' }, env),
    '--expect-version "release 2" is not a release id: use letters, digits and . _ + - only, ' +
      'starting with a letter or digit',
  );
  rejects(
    () => resolveConfig({}, { ...env, SMOKE_EXPECT_VERSION: 'a\nb' }),
    'SMOKE_EXPECT_VERSION "a\\nb" is not a release id: use letters, digits and . _ + - only, ' +
      'starting with a letter or digit',
  );
  rejects(
    () => resolveConfig({ 'expect-version': 'v'.repeat(129) }, env),
    `--expect-version "${'v'.repeat(40)}…" is not a release id: it is 129 characters long, at most 128`,
  );
});

test('malformed URLs name their source', () => {
  rejects(
    () => resolveConfig({ backend: 'localhost:3001' }, env),
    '--backend "localhost:3001" must be an http:// or https:// URL (expected e.g. http://localhost:3001)',
  );
  rejects(
    () => resolveConfig({ frontend: 'not a url' }, env),
    '--frontend "not a url" is not a valid URL (expected e.g. http://localhost:3000)',
  );
  rejects(
    () => resolveConfig({ device: 'ftp://x' }, env),
    '--device "ftp://x" must be an http:// or https:// URL (expected e.g. http://localhost:3003)',
  );
  rejects(
    () => resolveConfig({}, { ...env, SMOKE_DEVICE_URL: 'device:3003' }),
    'SMOKE_DEVICE_URL "device:3003" must be an http:// or https:// URL (expected e.g. http://localhost:3003)',
  );
  rejects(
    () => resolveConfig({}, { ...env, SMOKE_FRONTEND_URL: 'http://' }),
    'SMOKE_FRONTEND_URL "http://" is not a valid URL (expected e.g. http://localhost:3000)',
  );
});

test('--timeout must be a positive whole number of ms; --wait may be 0', () => {
  assert.is(resolveConfig({ timeout: '1500', wait: '0' }, env).timeout, 1500);
  assert.is(resolveConfig({ wait: '30000' }, env).wait, 30_000);
  for (const bad of ['abc', '0', '-5', '1.5', '10s', '', '1e3']) {
    rejects(
      () => resolveConfig({ timeout: bad }, env),
      `--timeout must be a positive whole number of milliseconds, got "${bad}"`,
    );
  }
  // A whole number that is only too large is told the maximum, not that it is not a whole number.
  for (const big of ['2147483648', '99999999999', '123456789012345678901234567890']) {
    rejects(
      () => resolveConfig({ timeout: big }, env),
      `--timeout must be at most 2147483647 milliseconds (about 24.8 days, the longest a timer waits), got "${big}"`,
    );
  }
  assert.is(resolveConfig({ timeout: '2147483647' }, env).timeout, 2_147_483_647);
  rejects(
    () => resolveConfig({ wait: '99999999999' }, env),
    '--wait must be at most 2147483647 milliseconds (about 24.8 days, the longest a timer waits), got "99999999999"',
  );
  rejects(
    () => resolveConfig({ wait: '-1' }, env),
    '--wait must be a non-negative whole number of milliseconds, got "-1"',
  );
  rejects(() => resolveConfig({ artifacts: ' ' } as RawOptions, env), '--artifacts needs a non-empty value');
});

test('a missing browser is a configuration error with an install hint', () => {
  rejects(
    () => resolveConfig({}, { CHROME_PATH: '/nonexistent/chrome' }),
    'CHROME_PATH=/nonexistent/chrome is not an executable file; install Chromium (apt-get install chromium) ' +
      'or set CHROME_PATH to a Chrome/Chromium executable',
  );
});

test('raw argv: unknown options, stray arguments and missing values are rejected', () => {
  assert.equal(parseSmokeArgs(['--backend', 'http://x', '--strict', '--timeout=5']), {
    help: false,
    options: { backend: 'http://x', strict: true, timeout: '5' },
  });
  rejects(() => parseSmokeArgs(['--bogus']), 'unknown option --bogus (run with --help to list the options)');
  rejects(
    () => parseSmokeArgs(['--backnd', 'http://x']),
    'unknown option --backnd (run with --help to list the options)',
  );
  rejects(() => parseSmokeArgs(['http://x']), 'unexpected argument "http://x" (options take the form --name value)');
  rejects(
    () => parseSmokeArgs(['--timeout']),
    '--timeout needs a value (write --timeout=-x for one starting with "-")',
  );
  rejects(
    () => parseSmokeArgs(['--json', '--strict']),
    '--json needs a value (write --json=-x for one starting with "-")',
  );
  rejects(() => parseSmokeArgs(['--strict=yes']), '--strict takes no value');
  rejects(() => parseSmokeArgs(['--no-sandbox=1']), '--no-sandbox takes no value');
  rejects(() => parseSmokeArgs(['--no-strict']), 'unknown option --no-strict (run with --help to list the options)');
});

test('--help or -h wins over any other argument, even a mistake on the same line', () => {
  for (const argv of [
    ['--help'],
    ['-h'],
    ['--backend', 'http://x', '-h'],
    ['--bogus', '--help'],
    ['--timeout', '--help'],
  ]) {
    assert.equal(parseSmokeArgs(argv), { help: true }, argv.join(' '));
  }
});

test('--no-sandbox turns the sandbox off in either order with --sandbox; the last of a repeated option wins', () => {
  const sandboxOf = (argv: string[]) => (parseSmokeArgs(argv) as { options: RawOptions }).options.sandbox;
  assert.is(sandboxOf(['--no-sandbox']), false);
  assert.is(sandboxOf(['--sandbox', '--no-sandbox']), false);
  assert.is(sandboxOf(['--no-sandbox', '--sandbox']), false);
  assert.is(sandboxOf(['--sandbox']), true);
  assert.is(sandboxOf([]), undefined);
  assert.equal(parseSmokeArgs(['--backend', 'http://a', '--backend=http://b']), {
    help: false,
    options: { backend: 'http://b' },
  });
});

test('--operator-token-file (or SMOKE_OPERATOR_TOKEN_FILE): its first token line; errors never show the text', () => {
  const dir = mkdtempSync(join(tmpdir(), 'smoke-operator-'));
  try {
    const file = join(dir, 'operator-token');
    writeFileSync(file, '# the operator token\n\n  operator-token-0123456789  \n');
    assert.is(resolveConfig({ 'operator-token-file': file }, env).operatorToken, 'operator-token-0123456789');
    assert.is(
      resolveConfig({}, { ...env, SMOKE_OPERATOR_TOKEN_FILE: file }).operatorToken,
      'operator-token-0123456789',
    );
    const pasted = 'operator-token-pasted-as-a-path';
    assert.throws(
      () => resolveConfig({ 'operator-token-file': pasted }, env),
      (error: Error) =>
        error.message === '--operator-token-file cannot be read (ENOENT): give the path of a file holding the token',
    );
    writeFileSync(file, '# nothing yet\n');
    assert.throws(
      () => resolveConfig({ 'operator-token-file': file }, env),
      (error: Error) => error.message === '--operator-token-file holds no token: write the operator token into it',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
