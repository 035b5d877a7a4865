// The frontend as a real process: settings errors, plain request lines, a page while the backend is down, clean exit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnService } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { freePort } from '../tools/free-port.ts';
import { waitFor } from './support/deadline.ts';
import { expectRefusal } from './support/refused-start.ts';
import { listen } from './support/listen.ts';
import type { Server } from 'node:http';
import { createTestCa } from './support/test-ca.ts';

test.after.each(stopAll);

async function closedPortUrl() {
  return `http://127.0.0.1:${await freePort()}`;
}

test('serves the page and /status.json with the backend down, logging one plain line per request', async () => {
  const down = await closedPortUrl();
  const frontend = await spawnService('frontend/main.ts', {
    env: { BACKEND_URL: down, DEVICE_URL: '' },
    waitPath: '/',
  });
  const page = await fetch(`${frontend.url}/`);
  assert.is(page.status, 200);
  assert.match(await page.text(), /<h1>System status<\/h1>/);
  const status = await fetch(`${frontend.url}/status.json`);
  assert.is(status.status, 200);
  const doc = (await status.json()) as { services: { backend: { liveness: string }; device: unknown } };
  assert.is(doc.services.backend.liveness, 'unreachable');
  assert.is(doc.services.device, null);
  const line = await waitFor(() => frontend.stdout.find((l) => l.includes(' GET /status.json ')), {
    what: 'log line for /status.json',
  });
  assert.match(line, /^\d{4}-\d\d-\d\dT[\d:.]+Z GET \/status\.json 200 \d+ms$/);
  assert.match(
    frontend.stdout[0] ?? '',
    new RegExp(
      `^frontend listening on 127\\.0\\.0\\.1 port ${frontend.port}; ` +
        `metrics on port ${new URL(frontend.metricsUrl).port}; backend ${down}, device not monitored`,
    ),
  );
  for (const l of frontend.lines) assert.not.ok(l.trimStart().startsWith('{'), `JSON-looking log line: ${l}`);
});

test('METRICS_PORT=0: /metrics on the port the start-up line names, and a 404 on the public port', async () => {
  const frontend = await spawnService('frontend/main.ts', {
    env: { BACKEND_URL: await closedPortUrl(), DEVICE_URL: '', METRICS_PORT: '0' },
    waitPath: '/',
  });
  const port = /; metrics on port (\d+);/.exec(frontend.stdout[0] ?? '')?.[1];
  assert.ok(port && port !== '0', frontend.stdout[0]);
  const scrape = await fetch(`http://127.0.0.1:${port}/metrics`);
  assert.is(scrape.status, 200);
  assert.match(await scrape.text(), /^frontend_sign_ins_refused_total\{reason="wrong_token"\} 0$/m);
  assert.is((await fetch(`${frontend.url}/metrics`)).status, 404);
});

test('METRICS=off: no management port, and the start-up line names none', async () => {
  const frontend = await spawnService('frontend/main.ts', {
    env: { BACKEND_URL: await closedPortUrl(), DEVICE_URL: '', METRICS: 'off' },
    waitPath: '/',
  });
  assert.not.match(frontend.stdout[0] ?? '', /metrics/);
  const refused = await fetch(`${frontend.metricsUrl}/metrics`).catch((error: Error) => error);
  assert.instance(refused, Error, 'nothing listens on the management port');
});

test('tells its own release: /status.json version and its start-up line', async () => {
  const frontend = await spawnService('frontend/main.ts', {
    env: { BACKEND_URL: await closedPortUrl(), DEVICE_URL: '', RELEASE_ID: 'v2.0.1+7' },
    waitPath: '/',
  });
  const doc = (await (await fetch(`${frontend.url}/status.json`)).json()) as { version: string };
  assert.is(doc.version, 'v2.0.1+7');
  assert.match(frontend.stdout[0] ?? '', /; release v2\.0\.1\+7;/);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal}: exits 0 and says it stopped`, async () => {
    const frontend = await spawnService('frontend/main.ts', {
      env: { BACKEND_URL: await closedPortUrl() },
      waitPath: '/',
    });
    frontend.signal(signal);
    assert.is(await frontend.waitExit(5000), 0);
    const said = frontend.stdout.filter((l) => l.startsWith('frontend: '));
    assert.equal(
      said,
      [`frontend: shutting down: finishing open requests (signal=${signal}, delayMs=0)`, 'frontend: shutdown complete'],
      frontend.lines.join('\n'),
    );
    assert.equal(frontend.stderr.filter(Boolean), []);
  });
}

test('SIGTERM while /status.json waits on a hung backend: the answer still arrives, then exit 0', async () => {
  const hung = await listen(() => {}); // accepts, never answers
  try {
    const frontend = await spawnService('frontend/main.ts', {
      env: { BACKEND_URL: hung.url, DEVICE_URL: '', STATUS_TIMEOUT_MS: '800' },
      waitPath: '/',
    });
    const pending = fetch(`${frontend.url}/status.json`);
    await waitFor(() => hasConnections(hung.server), { what: 'frontend probing the hung backend' });
    frontend.signal('SIGTERM');
    const res = await pending;
    assert.is(res.status, 200);
    const doc = (await res.json()) as { services: { backend: { problem: string } } };
    assert.is(doc.services.backend.problem, 'unreachable: no response within 800ms');
    assert.is(await frontend.waitExit(5000), 0);
  } finally {
    await hung.close();
  }
});

function hasConnections(server: Server) {
  return new Promise<boolean>((resolve) => server.getConnections((_, n) => resolve(n > 0)));
}

const badSettings: [Record<string, string>, string][] = [
  [{ PORT: 'abc' }, 'frontend: PORT=abc is not valid: expected a port number from 0 to 65535'],
  [{ BACKEND_URL: 'ftp://x' }, 'frontend: BACKEND_URL=ftp://x is not valid: expected a http: or https: URL'],
  // A rejected URL is quoted without its password.
  [
    { BACKEND_URL: 'ftp://u:S3cret@x/?token=T0k' },
    'frontend: BACKEND_URL=ftp://u:***@x/?token=*** is not valid: expected a http: or https: URL',
  ],
  [
    { STATUS_TIMEOUT_MS: 'soon' },
    'frontend: STATUS_TIMEOUT_MS=soon is not valid: expected a whole number from 50 to 60000',
  ],
  [
    { RELEASE_ID: `${'r'.repeat(200)}` },
    `frontend: RELEASE_ID="${'r'.repeat(40)}…" is not valid: it is 200 characters long, at most 128`,
  ],
];
for (const [env, message] of badSettings) {
  test(`bad setting ${Object.keys(env)[0]}: one line on stderr, exit 1`, async () => {
    const { line } = await expectRefusal('frontend/main.ts', { env }, message);
    assert.is(line, message);
  });
}

test('a port already in use: one line naming it, exit 1', async () => {
  const first = await spawnService('frontend/main.ts', { env: { BACKEND_URL: await closedPortUrl() }, waitPath: '/' });
  // Plain console output: no JSON fatal line from the frontend (expectRefusal checks stdout stays empty).
  const { line } = await expectRefusal('frontend/main.ts', { port: first.port }, 'frontend: 127.0.0.1');
  assert.is(line, `frontend: 127.0.0.1 port ${first.port} is already in use: stop the other process or set PORT`);
});

test('HTTPS_PORT without the TLS files, or already in use: one line naming HTTPS_PORT, exit 1', async () => {
  const noTls = await expectRefusal('frontend/main.ts', { env: { HTTPS_PORT: '0' } }, 'frontend: HTTPS_PORT');
  assert.is(
    noTls.line,
    'frontend: HTTPS_PORT is set but TLS_CERT_FILE and TLS_KEY_FILE are not: ' +
      'set both to serve HTTPS, or unset HTTPS_PORT',
  );
  const ca = createTestCa();
  try {
    const { certFile, keyFile } = ca.issue('frontend');
    const first = await spawnService('frontend/main.ts', {
      env: { BACKEND_URL: await closedPortUrl() },
      waitPath: '/',
    });
    const env = { HTTPS_PORT: String(first.port), TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile };
    const { line } = await expectRefusal('frontend/main.ts', { env }, 'frontend: 127.0.0.1');
    assert.is(
      line,
      `frontend: 127.0.0.1 port ${first.port} is already in use: stop the other process or set HTTPS_PORT`,
    );
  } finally {
    ca.remove();
  }
});

test.run();
