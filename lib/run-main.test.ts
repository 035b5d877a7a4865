import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reportFatal, type RunMainOptions } from './run-main.ts';
import { ConfigError } from './config-error.ts';

/** Runs reportFatal against collecting streams; returns what each got and the exit code. */
function fatal(error: unknown, options: RunMainOptions = {}) {
  const out: string[] = [];
  const err: string[] = [];
  let code: number | undefined;
  reportFatal('backend', error, {
    env: { NODE_ENV: 'production' },
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    exit: (n) => void (code = n),
    ...options,
  });
  return { out: out.join(''), err: err.join(''), code };
}

const portInUse = () =>
  new ConfigError('all interfaces port 4101 is already in use: stop the other process or set PORT', {
    cause: Object.assign(new Error('listen EADDRINUSE: address already in use :::4101'), { code: 'EADDRINUSE' }),
  });

test('production: the human line on stderr, one pino JSON line at level 60 on stdout, exit 1', () => {
  const { out, err, code } = fatal(portInUse());
  assert.is(code, 1);
  assert.is(err, 'backend: all interfaces port 4101 is already in use: stop the other process or set PORT\n');
  assert.ok(out.endsWith('\n') && out.split('\n').length === 2, `one line: ${out}`);
  const line = JSON.parse(out);
  assert.is(line.level, 60);
  assert.is(line.name, 'backend');
  assert.is(line.pid, process.pid);
  assert.type(line.time, 'number');
  assert.is(line.msg, 'all interfaces port 4101 is already in use: stop the other process or set PORT');
  assert.is(line.code, 'EADDRINUSE');
  assert.not.match(out, /\bat \S+:\d+/, 'no stack for a configuration error');
});

test('an unset NODE_ENV is production; a configuration error without a code is named by its type', () => {
  const { out } = fatal(new ConfigError('SERIAL_PATH is not set'), { env: {} });
  const line = JSON.parse(out);
  assert.equal([line.level, line.code, line.msg, line.err], [60, 'ConfigError', 'SERIAL_PATH is not set', undefined]);
});

test('local mode: the human line only', () => {
  const { out, err, code } = fatal(portInUse(), { env: { NODE_ENV: 'local' } });
  assert.is(out, '');
  assert.match(err, /^backend: all interfaces port 4101 is already in use/);
  assert.is(code, 1);
});

test('an unexpected error keeps its stack on both streams', () => {
  const { out, err } = fatal(new TypeError('boom'));
  assert.match(err, /^backend: unexpected error\nTypeError: boom\n {4}at /);
  const line = JSON.parse(out);
  assert.equal([line.level, line.code, line.msg, line.err.type], [60, 'TypeError', 'boom', 'TypeError']);
  assert.match(line.err.stack, /\n {4}at /);
});

test('jsonLog: false (the frontend, a plain-console part) writes the human line only', () => {
  const { out, err } = fatal(portInUse(), { jsonLog: false });
  assert.is(out, '');
  assert.match(err, /already in use/);
});

test.run();
