// The backend's container health check (docs/contract.md#container-health-checks) against real local servers,
// compiled as in the image and through tsx.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RequestListener } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { listen, type Listening } from './support/listen.ts';
import { freePort } from '../tools/free-port.ts';
import { withDeadline } from './support/deadline.ts';
import { spawnProcess, stopAll } from './support/spawn-process.ts';
import { compileHealthcheck, root, type Compiled } from './infra/compile-healthcheck.ts';
import { createServer as createHttpsServer } from 'node:https';
import { createTestCa } from './support/test-ca.ts';

interface Run {
  code: number | string;
  stderr: string;
  stdout: string;
}

interface Seen {
  method?: string;
  url?: string;
  host?: string;
}
// A certificate for the public name only, as in production: the check must not need it to name localhost.
const testCa = createTestCa();
const publicCert = testCa.issue('public', ['backend.example.com']);

/** A deadline short enough that the tests need not wait out the 5 s default (one test below does, once). */
const SHORT_TIMEOUT = { HEALTHCHECK_TIMEOUT_MS: '300' };

// Compiled once for the whole file (the compiler takes a second or two); removed after the last suite.
let compiling: Promise<Compiled> | undefined;
const compiledFile = async () => (await (compiling ??= compileHealthcheck('healthcheck-test'))).file;
let servers: Listening[] = [];
let rawServers: Server[] = [];

async function serve(handler: RequestListener, host = '127.0.0.1'): Promise<Listening & { seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = await listen((req, res) => {
    seen.push({ method: req.method, url: req.url, host: req.headers.host });
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
  return async function runCheck(env: Record<string, string>, limitMs = 30_000): Promise<Run> {
    const args = kind === 'compiled' ? [await compiledFile()] : ['--import', 'tsx', 'healthcheck.ts'];
    const proc = spawnProcess(process.execPath, args, { cwd: root, env: { ...process.env, ...env } });
    // 'close' comes after the last output chunk, so stderr is complete.
    await withDeadline(new Promise((resolve) => proc.child.once('close', resolve)), limitMs, `healthcheck (${kind})`);
    const code = await proc.exited;
    return { code, stderr: proc.stderr.join('\n').trim(), stdout: proc.stdout.join('\n').trim() };
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
  });

  test('a server that accepts and never answers → exit 1, the message naming the deadline', async () => {
    const server = await serve(hang);
    const run = await check({ PORT: String(server.port), ...SHORT_TIMEOUT });
    assert.is(run.code, 1);
    assert.is(run.stderr, `healthcheck: GET http://localhost:${server.port}/api/health timed out after 300 ms`);
    assert.is(server.seen.length, 1, 'the request reached the server, so this was the response timeout');
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

  test('TLS_CERT_FILE set: GET https://localhost/api/health, whatever name the certificate carries', async () => {
    const https = createHttpsServer({ cert: publicCert.cert, key: publicCert.key, minVersion: 'TLSv1.2' });
    const server = await serve(answer(200));
    https.on('request', (req, res) => server.server.emit('request', req, res));
    const secure = await listen(https);
    servers.push(secure);
    const run = await check({ PORT: String(secure.port), TLS_CERT_FILE: publicCert.certFile });
    assert.is(run.code, 0, run.stderr);
    assert.equal(server.seen, [{ method: 'GET', url: '/api/health', host: `localhost:${secure.port}` }]);
  });

  test('TLS_CERT_FILE set but the service answers plain HTTP → exit 1, one line naming https', async () => {
    const server = await serve(answer(200));
    // The default deadline: the refusal comes at once, and under load (the whole suite on two cores) the 300 ms of
    // SHORT_TIMEOUT once passed first, so the line said "timed out" (29 November 2026).
    const run = await check({ PORT: String(server.port), TLS_CERT_FILE: publicCert.certFile });
    assert.is(run.code, 1);
    assert.match(run.stderr, new RegExp(`^healthcheck: GET https://localhost:${server.port}/api/health failed: `));
    assert.is(run.stderr.split('\n').length, 1, 'one line');
    assert.is(server.seen.length, 0, 'no request was understood');
  });

  test('a bad PORT is one clear line and exit 1, not a stack trace', async () => {
    const run = await check({ PORT: 'http' });
    assert.is(run.code, 1);
    assert.is(run.stderr, 'healthcheck: PORT=http is not valid: expected a port number from 1 to 65535');
  });

  test('a bad HEALTHCHECK_TIMEOUT_MS is one clear line and exit 1', async () => {
    for (const value of ['5s', '0', '-1']) {
      const run = await check({ PORT: '3001', HEALTHCHECK_TIMEOUT_MS: value });
      assert.is(run.code, 1, value);
      assert.is(
        run.stderr,
        `healthcheck: HEALTHCHECK_TIMEOUT_MS=${value} is not valid: expected a whole number of milliseconds`,
      );
    }
  });

  test.run();
}

// Only for the compiled form (the one the image runs): the deadline covers the whole exchange, not idle time, and
// it is 5 s unless HEALTHCHECK_TIMEOUT_MS says otherwise.
const trickle = suite('healthcheck (compiled): deadline');
const check = runner('compiled');
trickle.after.each(async () => {
  await stopAll();
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
trickle.after(() => testCa.remove());

trickle('a server that sends its status line a byte at a time, never idle for long, is still cut off', async () => {
  // An idle timeout would never fire here: the check would run until the test's own deadline.
  const timers: NodeJS.Timeout[] = [];
  const server = await serve((_req, res) => {
    const socket = res.socket!;
    socket.write('HTTP/1.1 200 OK');
    timers.push(setInterval(() => socket.writable && socket.write(' '), 20));
  });
  try {
    const run = await check({ PORT: String(server.port), ...SHORT_TIMEOUT });
    assert.is(run.code, 1);
    assert.is(run.stderr, `healthcheck: GET http://localhost:${server.port}/api/health timed out after 300 ms`);
  } finally {
    timers.forEach(clearInterval);
  }
});

trickle('without HEALTHCHECK_TIMEOUT_MS the deadline is the contract’s 5000 ms', async () => {
  const server = await serve(hang);
  const run = await check({ PORT: String(server.port) });
  assert.is(run.code, 1);
  assert.is(run.stderr, `healthcheck: GET http://localhost:${server.port}/api/health timed out after 5000 ms`);
});

trickle.run();

// The README names the compiled file; run exactly that name from the folder it was built in, where package.json says
// "type": "module" (a .js name there would be refused: `exports is not defined in ES module scope`).
const built = suite('healthcheck (compiled): where it is built');
built.after(async () => {
  await stopAll();
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  (await compiling)?.remove(); // the last suite of the file
});
built(
  '`node dist/healthcheck.cjs` beside the package.json it was built with answers 0 for a healthy service',
  async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    assert.ok(readme.includes('`dist/healthcheck.cjs`'), 'the README names dist/healthcheck.cjs');
    const buildDir = dirname(dirname(await compiledFile()));
    assert.is(JSON.parse(readFileSync(join(buildDir, 'package.json'), 'utf8')).type, 'module');
    const server = await serve(answer(200));
    const proc = spawnProcess(process.execPath, ['dist/healthcheck.cjs'], {
      cwd: buildDir,
      env: { ...process.env, PORT: String(server.port) },
    });
    await withDeadline(
      new Promise((resolve) => proc.child.once('close', resolve)),
      30_000,
      'node dist/healthcheck.cjs',
    );
    assert.is(await proc.exited, 0, proc.stderr.join('\n'));
    assert.is(server.seen.length, 1);
  },
);
built.run();
