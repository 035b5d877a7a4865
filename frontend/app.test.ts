import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from './app.ts';
import { healthyBody, readyBody, startFakeService, type FakeService } from '../test/support/fake-http-server.ts';
import type { StatusDocument } from './status-document.ts';
import { withDeadline } from '../test/support/deadline.ts';

let backend: FakeService;
let lines: string[];

test.before.each(async () => {
  lines = [];
  backend = await startFakeService({
    '/api/health': { status: 200, body: healthyBody() },
    '/api/ready': { status: 200, body: readyBody('ready', { database: 'connected' }) },
    '/api/devices': { status: 200, body: { devices: [] } },
  });
});
test.after.each(async () => {
  await backend.close();
});

const app = () =>
  createApp({
    version: 'rel-7',
    backendUrl: backend.url,
    timeoutMs: 1000,
    access: 'open',
    log: (line) => lines.push(line),
  });

const SECURITY = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

function assertSecurityHeaders(res: Response, what: string) {
  for (const [name, value] of Object.entries(SECURITY)) assert.is(res.headers.get(name), value, `${what}: ${name}`);
  const csp = res.headers.get('content-security-policy') ?? '';
  for (const directive of ["default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'"]) {
    assert.ok(csp.split('; ').includes(directive), `${what}: CSP lacks ${directive}: ${csp}`);
  }
  assert.not.match(csp, /unsafe-inline|unsafe-eval|\*/, `${what}: CSP must not loosen script rules: ${csp}`);
}

test('GET / is the status page, with security headers and an ETag', async () => {
  const res = await app().request('/');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.match(res.headers.get('etag') ?? '', /^"[\w-]{20,}"$/);
  assertSecurityHeaders(res, 'GET /');
  const html = await res.text();
  assert.match(html, /<title>System status<\/title>/);
  assert.match(html, /<script type="module" src="\/board.js"><\/script>/);
  // The CSP forbids inline script and style, so the page must not have any (nor external assets).
  assert.not.match(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'inline <script>');
  assert.not.match(html, /\sstyle=|<style|\son[a-z]+=/i, 'inline style or event handler');
  assert.not.match(html, /(src|href)="(https?:)?\/\//, 'external asset');
});

test('every static file referenced by the page is served with its type and the headers', async () => {
  const a = app();
  for (const [path, type] of [
    ['/board.js', 'text/javascript; charset=utf-8'],
    ['/board-view.js', 'text/javascript; charset=utf-8'],
    ['/style.css', 'text/css; charset=utf-8'],
    ['/favicon.svg', 'image/svg+xml'],
  ] as const) {
    const res = await a.request(path);
    assert.is(res.status, 200, path);
    assert.is(res.headers.get('content-type'), type, path);
    assert.is(res.headers.get('cache-control'), 'no-cache', path);
    assertSecurityHeaders(res, path);
    assert.ok((await res.arrayBuffer()).byteLength > 50, path);
  }
});

test("every module the page's scripts import is served as JavaScript (a missing one blanks the page)", async () => {
  const a = app();
  const seen = new Set<string>();
  const queue = ['/board.js'];
  while (queue.length) {
    const path = queue.shift()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const res = await a.request(path);
    assert.is(res.status, 200, path);
    assert.is(res.headers.get('content-type'), 'text/javascript; charset=utf-8', path);
    for (const [, name] of (await res.text()).matchAll(/\bfrom '\.\/([\w-]+\.js)'/g)) queue.push(`/${name}`);
  }
  assert.equal([...seen].sort(), [
    '/board-view.js',
    '/board.js',
    '/device-card.js',
    '/dom.js',
    '/fleet-panel.js',
    '/fleet-view.js',
    '/format.js',
    '/readiness-timeline.js',
    '/readings-view.js',
    '/timeline-strip.js',
  ]);
});

test('If-None-Match with the current ETag gets 304 and no body; a stale one gets the file', async () => {
  const a = app();
  const first = await a.request('/style.css');
  const etag = first.headers.get('etag')!;
  const again = await a.request('/style.css', { headers: { 'If-None-Match': etag } });
  assert.is(again.status, 304);
  assert.is(again.headers.get('etag'), etag);
  assert.is(await again.text(), '');
  assertSecurityHeaders(again, '304');
  const weakInList = await a.request('/style.css', { headers: { 'If-None-Match': `"other", W/${etag}` } });
  assert.is(weakInList.status, 304);
  const stale = await a.request('/style.css', { headers: { 'If-None-Match': '"stale"' } });
  assert.is(stale.status, 200);
  assert.is(await stale.text(), await first.text());
  assert.is.not((await a.request('/board.js')).headers.get('etag'), etag, 'each file has its own ETag');
});

test('source files in the public folder are never served', async () => {
  for (const path of ['/board-view.d.ts', '/../app.ts', '/%2e%2e/app.ts', '/.env']) {
    const res = await app().request(path);
    assert.is(res.status, 404, path);
    assertSecurityHeaders(res, path);
  }
});

test('HEAD / answers 200 with no body (what probes may send)', async () => {
  const res = await app().request('/', { method: 'HEAD' });
  assert.is(res.status, 200);
  assert.is(await res.text(), '');
});

test('GET /status.json is the status document, never cached, with the headers', async () => {
  const res = await app().request('/status.json');
  assert.is(res.status, 200);
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assertSecurityHeaders(res, '/status.json');
  const doc = (await res.json()) as StatusDocument;
  assert.is(doc.overall, 'ready');
  assert.is(doc.services.backend.url, backend.url);
  assert.is(doc.services.device, null);
});

test('/status.json answers 200 even when every service is down', async () => {
  await backend.close();
  const a = createApp({
    version: 'rel-7',
    backendUrl: backend.url,
    deviceUrl: backend.url,
    timeoutMs: 1000,
    access: 'open',
    log: () => {},
  });
  const res = await a.request('/status.json');
  assert.is(res.status, 200);
  const doc = (await res.json()) as StatusDocument;
  assert.is(doc.overall, 'degraded');
  assert.is(doc.services.backend.liveness, 'unreachable');
  assert.is(doc.services.device?.liveness, 'unreachable');
});

test(
  '/status.json with a device service that accepts and never answers: ' + '200, the device unreachable at its timeout',
  async () => {
    const hung = await startFakeService({ '/api/health': 'hang', '/api/ready': 'hang' });
    try {
      const a = createApp({
        version: 'rel-7',
        backendUrl: backend.url,
        deviceUrl: hung.url,
        timeoutMs: 500,
        access: 'open',
        log: () => {},
      });
      const res = await withDeadline(
        Promise.resolve(a.request('/status.json')),
        5000,
        '/status.json with a hung device service',
      );
      assert.is(res.status, 200);
      const doc = (await res.json()) as StatusDocument;
      assert.equal([doc.services.device?.liveness, doc.services.device?.readiness], ['unreachable', 'unreachable']);
      assert.is(doc.services.device?.problem, 'unreachable: no response within 500ms');
      assert.is(doc.services.backend.readiness, 'ready');
      assert.is(doc.overall, 'degraded');
    } finally {
      await hung.close();
    }
  },
);

test('one plain-text log line per request: time, method, path, status, duration; never JSON', async () => {
  const a = app();
  await a.request('/');
  await a.request('/status.json');
  await a.request('/missing%0Aforged 200');
  assert.is(lines.length, 3, lines.join('\n'));
  const pattern = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (GET) (\S+) (\d{3}) (\d+)ms$/;
  const parsed = lines.map((line) => pattern.exec(line));
  assert.ok(parsed.every(Boolean), `lines must match ${pattern}:\n${lines.join('\n')}`);
  assert.equal(
    parsed.map((m) => [m![2], m![3]]),
    [
      ['/', '200'],
      ['/status.json', '200'],
      ['/missing%0Aforged%20200', '404'],
    ],
  );
  for (const line of lines) assert.throws(() => JSON.parse(line));
});

test('unknown paths get a 404 that says where the page is', async () => {
  const res = await app().request('/nope');
  assert.is(res.status, 404);
  assert.match(await res.text(), /The status page is at \/ and its data at \/status\.json/);
});

test.run();
