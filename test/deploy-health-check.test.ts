// scripts/deploy-health-check.sh against real local servers: healthy, healthy on a later try, failing, refused,
// hanging, host forms, and bad arguments.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createHttpsServer } from 'node:https';
import { listen, type Listening } from './support/listen.ts';
import { createTestCa } from './support/test-ca.ts';
import { freePort } from '../tools/free-port.ts';
import { withDeadline } from './support/deadline.ts';
import { spawnProcess, stopAll } from './support/spawn-process.ts';
import { root } from './infra/compile-healthcheck.ts';

const SCRIPT = 'scripts/deploy-health-check.sh';
let servers: Listening[] = [];

interface Run {
  code: number | string;
  stdout: string[];
  stderr: string[];
}

async function run(args: string[], env: Record<string, string> = {}, limitMs = 20_000): Promise<Run> {
  const proc = spawnProcess('bash', [SCRIPT, ...args], {
    cwd: root,
    env: { ...process.env, RETRY_DELAY_S: '0.1', REQUEST_TIMEOUT_S: '2', ...env },
  });
  await withDeadline(
    new Promise((resolve) => proc.child.once('close', resolve)),
    limitMs,
    `${SCRIPT} ${args.join(' ')}`,
  );
  return { code: await proc.exited, stdout: proc.stdout, stderr: proc.stderr };
}

/** A server answering each request with the next status of `statuses` (the last one repeats), counting requests. */
async function serve(statuses: number[], host = '127.0.0.1'): Promise<Listening & { paths: string[] }> {
  const paths: string[] = [];
  const handler: RequestListener = (req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(statuses[Math.min(paths.length - 1, statuses.length - 1)]!).end();
  };
  const server = await listen(handler, host);
  servers.push(server);
  return Object.assign(server, { paths });
}

test.after.each(async () => {
  await stopAll();
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

test('healthy at once: exit 0 after one try, one line naming the URL', async () => {
  const server = await serve([200]);
  const result = await run([`127.0.0.1:${server.port}`, '3']);
  assert.is(result.code, 0, result.stderr.join('\n'));
  assert.equal(result.stdout, [
    `deploy-health-check: try 1/3: http://127.0.0.1:${server.port}/api/health answered 200: healthy`,
  ]);
  assert.equal(server.paths, ['/api/health']);
});

test('healthy on the third try: two failure lines, then healthy, exit 0', async () => {
  const server = await serve([503, 502, 200]);
  const result = await run([`http://127.0.0.1:${server.port}`, '3']);
  assert.is(result.code, 0);
  assert.equal(
    result.stdout.map((l) => l.replace(/^.*?: try /, '')),
    [
      `1/3: http://127.0.0.1:${server.port}/api/health answered 503`,
      `2/3: http://127.0.0.1:${server.port}/api/health answered 502`,
      `3/3: http://127.0.0.1:${server.port}/api/health answered 200: healthy`,
    ],
  );
});

test('never healthy: exactly 3 tries, then exit 1 with a final line on stderr', async () => {
  const server = await serve([500]);
  const result = await run([`127.0.0.1:${server.port}`, '3']);
  assert.is(result.code, 1);
  assert.is(server.paths.length, 3);
  assert.is(result.stdout.length, 3);
  assert.equal(result.stderr, [
    `deploy-health-check: http://127.0.0.1:${server.port}/api/health is not healthy after 3 tries`,
  ]);
});

test('pauses RETRY_DELAY_S between tries, not after the last', async () => {
  // A `sleep` first on PATH that only writes down what it was asked: the pauses, without waiting them out.
  const bin = mkdtempSync(join(tmpdir(), 'deploy-check-sleep-'));
  const asked = join(bin, 'asked');
  writeFileSync(join(bin, 'sleep'), `#!/bin/sh\necho "$@" >> '${asked}'\n`, { mode: 0o755 });
  try {
    const server = await serve([500]);
    const result = await run([`127.0.0.1:${server.port}`, '3'], {
      RETRY_DELAY_S: '7.5',
      PATH: `${bin}:${process.env.PATH}`,
    });
    assert.is(result.code, 1);
    assert.is(server.paths.length, 3);
    assert.equal(readFileSync(asked, 'utf8').split('\n').filter(Boolean), ['7.5', '7.5'], 'two pauses of 7.5 s');
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

test("connection refused: curl's reason on each line, exit 1", async () => {
  const port = await freePort();
  const result = await run([`127.0.0.1:${port}`, '2']);
  assert.is(result.code, 1);
  assert.is(result.stdout.length, 2);
  for (const line of result.stdout)
    assert.match(
      line,
      new RegExp(`http://127\\.0\\.0\\.1:${port}/api/health failed: Failed to connect .*\\(curl exit 7\\)$`),
    );
});

test('a hanging backend: each try ends at REQUEST_TIMEOUT_S, exit 1', async () => {
  const server = await listen(() => {});
  servers.push(server);
  const result = await run([`127.0.0.1:${server.port}`, '2'], { REQUEST_TIMEOUT_S: '1' });
  assert.is(result.code, 1);
  assert.is(result.stdout.length, 2);
  for (const line of result.stdout) assert.match(line, /failed: .*(timed out|Timeout).*\(curl exit 28\)$/);
});

test('an IPv6 host in brackets, and HEALTH_PATH', async () => {
  const server = await serve([200], '::1');
  const result = await run([`[::1]:${server.port}`, '1'], { HEALTH_PATH: '/api/ready' });
  assert.is(result.code, 0, result.stdout.join('\n'));
  assert.equal(server.paths, ['/api/ready']);
});

test("a URL's password and secret query values are printed as ***: CI logs are read widely", async () => {
  const server = await serve([503, 200]);
  const result = await run([`http://ci:S3cret@127.0.0.1:${server.port}`, '2'], {
    HEALTH_PATH: '/api/health?token=T0k',
  });
  assert.is(result.code, 0, result.stderr.join('\n'));
  const shown = `http://ci:***@127.0.0.1:${server.port}/api/health?token=***`;
  assert.equal(result.stdout, [
    `deploy-health-check: try 1/2: ${shown} answered 503`,
    `deploy-health-check: try 2/2: ${shown} answered 200: healthy`,
  ]);
  assert.equal(server.paths, ['/api/health?token=T0k', '/api/health?token=T0k'], 'the request itself is as given');
});

test('a host without a port means the cloud backend port 8443, over HTTPS', async () => {
  for (const host of ['127.0.0.1', '127.0.0.1:8443']) {
    const result = await run([host, '1'], { REQUEST_TIMEOUT_S: '1' });
    assert.match(result.stdout[0] ?? '', /^deploy-health-check: try 1\/1: https:\/\/127\.0\.0\.1:8443\/api\/health /);
  }
});

test('HTTPS with a private CA: verified with HEALTH_CA_FILE, refused without it', async () => {
  const ca = createTestCa();
  try {
    const { cert, key } = ca.issue('backend');
    const server = await listen(createHttpsServer({ cert, key }, (_req, res) => res.writeHead(200).end()));
    servers.push(server);
    const url = `https://localhost:${server.port}`;
    const trusted = await run([url, '1'], { HEALTH_CA_FILE: ca.caFile });
    assert.is(trusted.code, 0, trusted.stdout.join('\n'));
    assert.equal(trusted.stdout, [`deploy-health-check: try 1/1: ${url}/api/health answered 200: healthy`]);
    const untrusted = await run([url, '1']);
    assert.is(untrusted.code, 1);
    assert.match(untrusted.stdout[0] ?? '', /\(curl exit 60\)$/);
    const missing = await run([url, '1'], { HEALTH_CA_FILE: join(ca.dir, 'nope.crt') });
    assert.is(missing.code, 2);
    assert.match(missing.stderr[0] ?? '', /HEALTH_CA_FILE cannot be read/);
  } finally {
    ca.remove();
  }
});

test('bad arguments: one clear line plus usage, exit 2, no request made', async () => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [[], {}, /expected 2 arguments, got 0/],
    [['127.0.0.1:1', 'three'], {}, /retries must be a whole number from 1, got 'three'/],
    [['127.0.0.1:1', '0'], {}, /retries must be a whole number from 1, got '0'/],
    [['', '3'], {}, /host is empty/],
    [['::1', '3'], {}, /write an IPv6 address in brackets, e\.g\. \[::1\]/],
    [['127.0.0.1:1', '3'], { RETRY_DELAY_S: 'soon' }, /RETRY_DELAY_S must be a number of seconds, got 'soon'/],
  ];
  for (const [args, env, message] of cases) {
    const result = await run(args, env);
    assert.is(result.code, 2, args.join(' '));
    assert.match(result.stderr[0] ?? '', message);
    assert.match(result.stderr[1] ?? '', /^usage: /);
    assert.equal(result.stdout, []);
  }
});

test.run();
