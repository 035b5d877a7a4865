import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Hono } from 'hono';
import { createLogger, readLogDisplay } from './logger.ts';
import { logRequests } from './request-log.ts';
import { ConfigError } from './config-error.ts';
import { collectLines } from '../test/support/log-sink.ts';

const sink = collectLines;

// In a process of its own: test files may share one, where another's logger has loaded pino-pretty already.
test('production never loads pino-pretty; local mode loads it at its first line, not before', () => {
  const code = `
    import { createRequire } from 'node:module';
    import { Writable } from 'node:stream';
    import { createLogger } from ${JSON.stringify(new URL('./logger.ts', import.meta.url).href)};
    const cache = createRequire(import.meta.url).cache;
    const loaded = () => Object.keys(cache).some((file) => file.includes('/node_modules/pino-pretty/'));
    const stream = new Writable({ write: (chunk, encoding, done) => done() });
    createLogger({ name: 'backend', environment: 'production', stream }).info('a line');
    const local = createLogger({ name: 'backend', environment: 'local', stream });
    const before = loaded();
    local.info('the first line');
    console.log(JSON.stringify([before, loaded()]));`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8' });
  assert.is(run.stderr, '');
  assert.equal(JSON.parse(run.stdout), [false, true], 'not by a production logger, nor by making a local one');
});

test('production writes one JSON object per line with a numeric level', () => {
  const { stream, lines } = sink();
  const log = createLogger({ name: 'backend', environment: 'production', stream });
  log.info({ port: 1 }, 'listening');
  log.warn('careful');
  assert.is(lines.length, 2);
  const [info, warn] = lines.map((line) => JSON.parse(line));
  assert.is(info.level, 30);
  assert.is(info.msg, 'listening');
  assert.is(info.port, 1);
  assert.is(info.name, 'backend');
  assert.is(warn.level, 40);
});

test('a `url` field is redacted, in a line and in a child binding, in production and local mode', () => {
  for (const environment of ['production', 'local']) {
    const { stream, lines } = sink();
    const log = createLogger({ name: 'device', environment, stream });
    log.warn({ url: 'ws://dev:S3cret@backend:3001/api/device/socket?token=T0k' }, 'backend socket closed');
    log.child({ url: 'http://u:S3cret@h/' }).info('child');
    const text = lines.join('\n');
    assert.not.match(text, /S3cret|T0k/, environment);
    assert.match(text, 'ws://dev:***@backend:3001/api/device/socket?token=***', environment);
    assert.match(text, 'http://u:***@h/', environment);
  }
});

test('an unknown NODE_ENV also logs JSON', () => {
  const { stream, lines } = sink();
  createLogger({ name: 'x', environment: 'staging', stream }).info('hi');
  assert.is(JSON.parse(lines[0]!).msg, 'hi');
});

test('local mode is human-readable and coloured, not JSON', () => {
  const { stream, lines } = sink();
  createLogger({ name: 'device', environment: 'local', stream }).warn('serial port lost');
  const text = lines.join('\n');
  assert.match(text, 'serial port lost');
  assert.match(text, 'WARN');
  assert.match(text, '\u001b['); // ANSI colour
  assert.throws(() => JSON.parse(lines[0]!));
});

test('local mode with LOG_SINGLE_LINE=1 (inside npm start): each entry on one line, its fields included', () => {
  const multi = sink();
  const single = sink();
  const local = (env: NodeJS.ProcessEnv, stream: typeof multi.stream) =>
    createLogger({ name: 'device', environment: 'local', stream, ...readLogDisplay(env) });
  local({ NO_COLOR: '1' }, multi.stream).info({ port: 3003, host: 'all' }, 'listening');
  local({ NO_COLOR: '1', LOG_SINGLE_LINE: '1' }, single.stream).info({ port: 3003, host: 'all' }, 'listening');
  assert.ok(multi.lines.length > 1, 'one line per field without it');
  assert.is(single.lines.length, 1, single.lines.join('\n'));
  assert.match(single.lines[0]!, /INFO \(device\/\d+\): listening \{"port":3003,"host":"all"\}$/);
  assert.not.match(single.lines[0]!, '\u001b[', 'NO_COLOR: no escape codes');
});

test('LOG_LEVEL filters, and a bad level is a ConfigError', () => {
  const { stream, lines } = sink();
  const log = createLogger({ name: 'x', environment: 'production', level: 'warn', stream });
  log.info('hidden');
  log.error('shown');
  assert.equal(
    lines.map((l) => JSON.parse(l).msg),
    ['shown'],
  );
  assert.throws(
    () => createLogger({ name: 'x', environment: 'production', level: 'loud' }),
    (e: unknown) => e instanceof ConfigError && /LOG_LEVEL=loud/.test((e as Error).message),
  );
});

function appWithLog(level: string, options?: Parameters<typeof logRequests>[2]) {
  const { stream, lines } = sink();
  const log = createLogger({ name: 'x', environment: 'production', level, stream });
  const app = new Hono();
  app.get('/api/health', (c) => c.json({ status: 'ok' }));
  app.get('/api/ready', (c) => c.json({ status: 'not_ready' }, 503));
  app.get('/things', (c) => c.text('x'));
  app.get('/boom', (c) => c.text('no', 500));
  return { app: logRequests(app, log, options), lines: () => lines.map((l) => JSON.parse(l)) };
}

test('requests are logged with req, status and response time', async () => {
  const { app, lines } = appWithLog('info');
  await app.request('/things?secret=1');
  const [line] = lines();
  assert.equal(line.req, { method: 'GET', url: '/things' });
  assert.is(line.res.statusCode, 200);
  assert.type(line.responseTime, 'number');
  assert.is(line.level, 30);
});

test('passing probes go at debug; failing probes and errors do not hide', async () => {
  const info = appWithLog('info');
  await info.app.request('/api/health');
  assert.is(info.lines().length, 0, 'a passing probe is not logged at info');
  await info.app.request('/api/ready');
  await info.app.request('/boom');
  assert.equal(
    info.lines().map((l) => [l.req.url, l.level]),
    [
      ['/api/ready', 30],
      ['/boom', 50],
    ],
  );

  const debug = appWithLog('debug');
  await debug.app.request('/api/health');
  assert.equal(
    debug.lines().map((l) => [l.req.url, l.level]),
    [['/api/health', 20]],
  );
});

test('quiet paths go at debug whatever their status', async () => {
  const { app, lines } = appWithLog('debug', { quietPaths: ['/things', '/boom'] });
  await app.request('/things');
  await app.request('/boom');
  await app.request('/missing');
  assert.equal(
    lines().map((l) => [l.req.url, l.level]),
    [
      ['/things', 20],
      ['/boom', 20],
      ['/missing', 30],
    ],
  );
});

test.run();
