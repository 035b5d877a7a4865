// The backend's container health check (docs/contract.md#container-health-checks) against real local servers,
// compiled as in the image and through tsx.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RequestListener } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { listen, type Listening } from './support/listen.ts';
import { freePort } from '../tools/free-port.ts';
import { withDeadline } from './support/deadline.ts';
import { spawnProcess, stopAll } from './support/spawn-process.ts';
import { compileHealthcheck, root, type Compiled } from './infra/compile-healthcheck.ts';

interface Run {
  code: number | string;
  stderr: string;
  stdout: string;
  /** Spawn to exit. */
  ms: number;
  /** performance.now() at exit. */
  exitAt: number;
}

interface Seen {
  method?: string;
  url?: string;
  host?: string;
}
// When each server last saw a request (performance.now()), to time the check without Node's own start-up.
const arrivals = new WeakMap<Seen[], number>();

// Compiled once for the whole file (the compiler takes a second or two); removed after the last suite.
let compiling: Promise<Compiled> | undefined;
const compiledFile = async () => (await (compiling ??= compileHealthcheck('healthcheck-test'))).file;
let servers: Listening[] = [];
let rawServers: Server[] = [];

async function serve(handler: RequestListener, host = '127.0.0.1'): Promise<Listening & { seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = await listen((req, res) => {
    seen.push({ method: req.method, url: req.url, host: req.headers.host });
    arrivals.set(seen, performance.now());
    handler(req, res);
  }, host);
  servers.push(server);
  return Object.assign(server, { seen });
}

/** A bare TCP server, for answers node:http would never send. */
async function rawServer(onConnection: (socket: Socket) => void): Promise<{ port: number }> {
  const server = createServer((socket) => {
    socket.on('error', () => {}); // the check exits mid-exchange; a reset here is expected
    socket.resume(); // discard the request, so the socket sees the check's exit and closes
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rawServers.push(server);
  return { port: (server.address() as AddressInfo).port };
}

const answer =
  (status: number): RequestListener =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end('{"status":"ok"}');
  };
const hang: RequestListener = () => {};

function runner(kind: 'compiled' | 'tsx') {
  return async function runCheck(env: Record<string, string>, limitMs = 9000): Promise<Run> {
    const args = kind === 'compiled' ? [await compiledFile()] : ['--import', 'tsx', 'healthcheck.ts'];
    const started = performance.now();
    const proc = spawnProcess(process.execPath, args, { cwd: root, env: { ...process.env, ...env } });
    let exitAt = 0;
    proc.child.once('exit', () => (exitAt = performance.now()));
    // 'close' comes after the last output chunk, so stderr is complete.
    await withDeadline(new Promise((resolve) => proc.child.once('close', resolve)), limitMs, `healthcheck (${kind})`);
    const code = await proc.exited;
    return {
      code,
      stderr: proc.stderr.join('\n').trim(),
      stdout: proc.stdout.join('\n').trim(),
      ms: exitAt - started,
      exitAt,
    };
  };
}

for (const kind of ['compiled', 'tsx'] as const) {
  const test = suite(`healthcheck (${kind})`);
  const check = runner(kind);

  test.before(async () => {
    if (kind === 'compiled') await compiledFile();
  });
  test.after.each(async () => {
    await stopAll();
    await Promise.all(servers.map((s) => s.close()));
    await Promise.all(rawServers.map((s) => new Promise((resolve) => s.close(resolve))));
    servers = [];
    rawServers = [];
  });

  test('200 → exit 0, silent, after GET /api/health on localhost', async () => {
    const server = await serve(answer(200));
    const run = await check({ PORT: String(server.port) });
    assert.is(run.code, 0, run.stderr);
    assert.is(run.stderr, '');
    assert.equal(server.seen, [{ method: 'GET', url: '/api/health', host: `localhost:${server.port}` }]);
  });

  test('a backend listening on IPv6 loopback only is reached through `localhost` too', async () => {
    const server = await serve(answer(200), '::1');
    const run = await check({ PORT: String(server.port) });
    assert.is(run.code, 0, run.stderr);
    assert.is(server.seen.length, 1);
  });

  test('500 → exit 1 with the status code on stderr', async () => {
    const server = await serve(answer(500));
    const run = await check({ PORT: String(server.port) });
    assert.is(run.code, 1);
    assert.is(run.stderr, `healthcheck: GET http://localhost:${server.port}/api/health answered status 500`);
    assert.is(run.stdout, '');
  });

  test('503 (readiness-style answer) is also a failure: only 200 is healthy', async () => {
    const server = await serve(answer(503));
    const run = await check({ PORT: String(server.port) });
    assert.is(run.code, 1);
    assert.match(run.stderr, /answered status 503$/);
  });

  test('connection refused → exit 1 with the error message', async () => {
    const port = await freePort();
    const run = await check({ PORT: String(port) });
    assert.is(run.code, 1);
    assert.match(
      run.stderr,
      new RegExp(
        `^healthcheck: GET http://localhost:${port}/api/health failed: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}`,
      ),
    );
    assert.is(run.stderr.split('\n').length, 1, 'one line');
    assert.ok(run.ms < 5000, `refused must not wait for the deadline, took ${run.ms.toFixed(0)} ms`);
  });

  // Timed from spawn for the lower bound; the upper bound leaves out the start-up of Node (and of tsx, which
  // takes seconds on a loaded machine): from spawn for the compiled check, from the request's arrival for tsx.
  test('a server that accepts and never answers → timeout message, exit 1, between 5.0 and 6 s', async () => {
    const server = await serve(hang);
    const run = await check({ PORT: String(server.port) });
    assert.is(run.code, 1);
    assert.is(run.stderr, `healthcheck: GET http://localhost:${server.port}/api/health timed out after 5000 ms`);
    assert.is(server.seen.length, 1, 'the request reached the server, so this was the response timeout');
    const sinceRequest = run.exitAt - arrivals.get(server.seen)!;
    assert.ok(run.ms >= 5000, `ended ${run.ms.toFixed(0)} ms after spawn, before the 5000 ms deadline`);
    const upper = kind === 'compiled' ? run.ms : sinceRequest;
    assert.ok(upper < 6000, `ended ${upper.toFixed(0)} ms after ${kind === 'compiled' ? 'spawn' : 'its request'}`);
  });

  test('103 Early Hints before the 200 → exit 0 (informational answers are skipped)', async () => {
    const server = await serve((_req, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
      setTimeout(() => res.writeHead(200).end('ok'), 50);
    });
    const run = await check({ PORT: String(server.port) });
    assert.is(run.code, 0, run.stderr);
  });

  test('an answer that is not HTTP → exit 1 naming it, no hang', async () => {
    const raw = await rawServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    const run = await check({ PORT: String(raw.port) });
    assert.is(run.code, 1);
    assert.match(run.stderr, /failed: the answer is not HTTP: "SSH-2\.0/);
  });

  test('a server that closes without answering → exit 1 naming it', async () => {
    const raw = await rawServer((socket) => socket.end());
    const run = await check({ PORT: String(raw.port) });
    assert.is(run.code, 1);
    assert.match(run.stderr, /failed: the connection closed before a status line$/);
  });

  test('a bad PORT is one clear line and exit 1, not a stack trace', async () => {
    const run = await check({ PORT: 'http' });
    assert.is(run.code, 1);
    assert.is(run.stderr, 'healthcheck: PORT=http is not valid: expected a port number from 1 to 65535');
  });

  test.run();
}

// Only for the compiled form (the one the image runs): the deadline covers the whole exchange, not idle time.
const trickle = suite('healthcheck (compiled): deadline');
const check = runner('compiled');
trickle.after.each(async () => {
  await stopAll();
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
trickle.after(async () => (await compiling)?.remove());

trickle('a server that sends its status line a byte every 500 ms still ends the check within 6 s', async () => {
  const timers: NodeJS.Timeout[] = [];
  const server = await serve((_req, res) => {
    const socket = res.socket!;
    socket.write('HTTP/1.1 200 OK');
    timers.push(setInterval(() => socket.writable && socket.write(' '), 500));
  });
  try {
    const run = await check({ PORT: String(server.port) });
    assert.is(run.code, 1);
    assert.match(run.stderr, /timed out after 5000 ms$/);
    assert.ok(run.ms >= 5000 && run.ms < 6000, `ended after ${run.ms.toFixed(0)} ms`);
  } finally {
    timers.forEach(clearInterval);
  }
});

trickle.run();
