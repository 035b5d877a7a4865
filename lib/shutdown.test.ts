import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { createReadiness } from './readiness.ts';
import { closeHttpServer, installGracefulShutdown } from './shutdown.ts';
import { startServer } from './serve.ts';
import { listen } from '../test/support/listen.ts';
import { createLogSink } from '../test/support/log-sink.ts';
import { setImmediate } from 'node:timers/promises';
import { withDeadline } from '../test/support/deadline.ts';

const quietLog = () => createLogSink('info', 't').log;

test('readiness flips at once; steps run in order after the delay; exit 0', async () => {
  const readiness = createReadiness();
  readiness.define('database', { initial: 'connected', ready: ['connected'] });
  const events: string[] = [];
  let exitCode: number | undefined;
  // The drain delay, held open by the test: the steps must wait for it, however long it takes.
  const waited: number[] = [];
  let endDelay!: () => void;
  const delay = new Promise<void>((resolve) => (endDelay = resolve));
  const shutdown = installGracefulShutdown({
    log: quietLog(),
    readiness,
    delayMs: 200,
    wait: (ms) => {
      waited.push(ms);
      return delay;
    },
    steps: [
      { name: 'a', run: () => void events.push('a') },
      {
        name: 'b',
        run: () => {
          throw new Error('b failed');
        },
      },
      // An async step is awaited before the next one.
      {
        name: 'c',
        run: async () => {
          await setImmediate();
          events.push('c');
        },
      },
    ],
    exit: (code) => {
      exitCode = code;
    },
  });
  const done = shutdown('SIGTERM');
  assert.is(readiness.snapshot().status, 'shutting_down');
  assert.equal(waited, [200], 'the drain delay is waited out');
  await setImmediate();
  assert.equal(events, [], 'no step runs during the delay');
  endDelay();
  await withDeadline(done, 2000, 'shutdown');
  assert.equal(events, ['a', 'c'], 'a failing step does not stop the rest');
  assert.is(exitCode, 0);
});

test('exit 1 when the steps do not finish within the timeout', async () => {
  let exited!: (code: number) => void;
  const exitCode = new Promise<number>((resolve) => (exited = resolve));
  const shutdown = installGracefulShutdown({
    log: quietLog(),
    readiness: createReadiness(),
    delayMs: 0,
    timeoutMs: 100,
    steps: [{ name: 'stuck', run: () => new Promise(() => {}) }],
    exit: (code) => exited(code),
  });
  void shutdown('SIGTERM');
  assert.is(await withDeadline(exitCode, 2000, 'exit after the shutdown timeout'), 1);
});

test('closeHttpServer lets an in-flight request finish and closes idle keep-alive connections', async () => {
  let slowArrived!: (finish: () => void) => void;
  const arrived = new Promise<() => void>((resolve) => (slowArrived = resolve));
  const server = await listen((req, res) => {
    // The slow request is answered only once the test has begun closing the server: it is in flight meanwhile.
    if (req.url === '/slow') slowArrived(() => res.end('done'));
    else res.end('fast');
  });
  const agent = new Agent({ keepAlive: true });
  const get = (path: string) =>
    new Promise<string>((resolve, reject) => {
      request(`${server.url}${path}`, { agent }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(body));
      })
        .on('error', reject)
        .end();
    });
  assert.is(await get('/fast'), 'fast'); // leaves an idle keep-alive connection open
  const slow = get('/slow');
  const finish = await withDeadline(arrived, 2000, 'slow request reaching the server');
  const closed = closeHttpServer(server.server);
  finish();
  assert.is(await withDeadline(slow, 2000, 'in-flight request'), 'done');
  await withDeadline(closed, 2000, 'server close despite keep-alive');
  agent.destroy();
});

test('closeHttpServer ends a connection left with half a request head (408); a slow request finishes', async () => {
  let slowArrived!: (finish: () => void) => void;
  const arrived = new Promise<() => void>((resolve) => (slowArrived = resolve));
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    // Answered only once the test has begun closing the server: the request is in flight meanwhile.
    fetch: () => new Promise<Response>((resolve) => slowArrived(() => resolve(new Response('done')))),
  });
  const { port } = server.address() as { port: number };
  const stranger = connect(port, '127.0.0.1', () => stranger.write('GET / HTTP/1.1\r\nHost: x\r\nX-Slow: '));
  let told = '';
  stranger.on('data', (chunk: Buffer) => (told += chunk.toString('latin1')));
  const strangerGone = new Promise<void>((resolve) => stranger.once('close', () => resolve()));
  try {
    const slow = fetch(`http://127.0.0.1:${port}/`).then((res) => res.text());
    const finish = await withDeadline(arrived, 2000, 'slow request reaching the server');
    const closed = closeHttpServer(server);
    finish();
    assert.is(await withDeadline(slow, 2000, 'in-flight request'), 'done');
    await withDeadline(closed, 10_000, 'server close despite a half-sent request head');
    await withDeadline(strangerGone, 2000, 'the half-sent connection closed');
    assert.match(told, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  } finally {
    stranger.destroy();
  }
});

test.run();
