// The probe's GET against real local servers: IPv4/IPv6 localhost, deadlines, body caps and redirects.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RequestListener, Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { httpGet } from './http-get.ts';
import { listen, type Listening } from '../test/support/listen.ts';
import { freePort } from '../tools/free-port.ts';
import { withDeadline } from '../test/support/deadline.ts';
import { createTestCa } from '../test/support/test-ca.ts';

const servers: Listening[] = [];
const serve = async (handler: RequestListener | Server, host = '127.0.0.1') => {
  const s = await listen(handler, host);
  servers.push(s);
  return s;
};
const ok: RequestListener = (req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url }));

/**
 * The probe's failure reason; fails the test if the GET succeeds or hangs. The reason says which bound ended it
 * (the deadline, the body cap, a refusal), so no test here needs to time the GET.
 */
async function failure(url: string, timeout = 2000): Promise<{ reason: string }> {
  const result = await withDeadline(httpGet(url, { timeout }), timeout + 3000, `GET ${url}`);
  if (result.reached) throw new Error(`expected a failure for ${url}, got HTTP ${result.status}`);
  return { reason: result.reason };
}

/** The answer; fails the test with the reason when there is none. */
async function answer(url: string) {
  const result = await httpGet(url, { timeout: 2000 });
  if (!result.reached) throw new Error(`GET ${url}: ${result.reason}`);
  return result;
}

test.after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

test('localhost reaches a server bound only to 127.0.0.1', async () => {
  const s = await serve(ok, '127.0.0.1');
  const res = await answer(`http://localhost:${s.port}/api/health`);
  assert.is(res.status, 200);
  assert.equal(JSON.parse(res.body), { path: '/api/health' });
});

test('localhost reaches a server bound only to ::1', async () => {
  const s = await serve(ok, '::1');
  const res = await answer(`http://localhost:${s.port}/api/ready`);
  assert.is(res.status, 200);
  assert.equal(JSON.parse(res.body), { path: '/api/ready' });
});

test('localhost reaches a dual-stack server, and IP literals work for both families', async () => {
  const s = await serve(ok, '::');
  for (const host of ['localhost', '127.0.0.1', '[::1]']) {
    const res = await answer(`http://${host}:${s.port}/x`);
    assert.is(res.status, 200, host);
  }
});

test('nothing listening on localhost: refused, naming both loopback addresses tried', async () => {
  const port = await freePort();
  const { reason } = await failure(`http://localhost:${port}/api/health`);
  assert.match(reason, `connection refused at localhost:${port} (is the service running?) (tried `);
  assert.match(reason, '127.0.0.1');
  assert.match(reason, '[::1]');
});

test('a server that accepts and never answers fails at the deadline', async () => {
  const s = await serve(() => {});
  const { reason } = await failure(`${s.url}/api/health`, 400);
  assert.is(reason, 'no response within 400ms');
});

test('headers then a stalled body fails at the deadline, saying how much arrived', async () => {
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"status":');
  });
  const { reason } = await failure(`${s.url}/api/health`, 400);
  assert.is(reason, 'body not complete within 400ms (10 bytes received)');
});

test('a huge body is cut off: by content-length up front, or once the cap is passed', async () => {
  const declared = await serve((_req, res) => {
    res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
    res.write('x');
  });
  assert.is((await failure(declared.url)).reason, 'body too large: content-length 10485760 exceeds 65536 bytes');
  const streamed = await serve((_req, res) => {
    res.writeHead(200);
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  });
  // Cut off by the cap, not by the deadline: that would read "body not complete within 5000ms".
  const { reason } = await failure(streamed.url, 5000);
  assert.is(reason, 'body too large: more than 65536 bytes');
});

test('a same-path redirect (another host or scheme) is followed; another path is not', async () => {
  const target = await serve(ok);
  const hop = await serve((req, res) => res.writeHead(301, { location: `${target.url}${req.url}` }).end());
  const res = await answer(`${hop.url}/api/health`);
  assert.is(res.status, 200);
  assert.is(res.url, `${target.url}/api/health`);
  const login = await serve((_req, res) => res.writeHead(302, { location: '/login?next=health' }).end());
  assert.is((await failure(`${login.url}/api/health`)).reason, 'redirected elsewhere: HTTP 302 to /login?next=health');
});

test('headers go with the request, and are dropped once a redirect leaves the origin ', async () => {
  const authorization = (req: Parameters<RequestListener>[0]) => req.headers.authorization ?? 'none';
  const target = await serve((req, res) => res.writeHead(200).end(authorization(req)));
  const hop = await serve((req, res) => {
    if (req.url === '/here') return res.writeHead(200).end(authorization(req));
    res.writeHead(301, { location: `${target.url}${req.url}` }).end();
  });
  const headers = { Authorization: 'Bearer read-token-0123456789' };
  const home = await httpGet(`${hop.url}/here`, { timeout: 2000, headers });
  assert.is(home.reached && home.body, 'Bearer read-token-0123456789');
  const away = await httpGet(`${hop.url}/api/devices`, { timeout: 2000, headers });
  assert.is(away.reached && away.body, 'none');
});

test('a redirect loop ends with a one-line reason', async () => {
  const s = await serve((req, res) => res.writeHead(307, { location: req.url }).end());
  const { reason } = await failure(`${s.url}/api/health`);
  assert.is(reason, `redirect loop: HTTP 307 from ${s.url}/api/health back to ${s.url}/api/health`);
});

test('https to a plain-http port fails as a TLS error, not a hang', async () => {
  const s = await serve(ok);
  // A TLS error, not the deadline ("no response within 2000ms"): the wrong scheme is named at once.
  const { reason } = await failure(`https://127.0.0.1:${s.port}/api/health`, 2000);
  assert.is(reason, `TLS handshake with 127.0.0.1:${s.port} failed (is it plain http?): wrong version number`);
});

test('http to a TLS port: the reset says the port speaks TLS, as the reverse case names plain http', async () => {
  const ca = createTestCa();
  const { cert, key } = ca.issue('tls-port');
  const tls = createHttpsServer({ cert, key }, ok);
  try {
    const s = await serve(tls);
    const { reason } = await failure(`http://127.0.0.1:${s.port}/api/health`);
    assert.is(
      reason,
      `connection reset by 127.0.0.1:${s.port} before a complete response (the port speaks TLS: use https://)`,
    );
  } finally {
    ca.remove();
  }
});

test('a connection dropped mid-body or before any answer is a failure, not a partial pass', async () => {
  const cut = await serve((_req, res) => {
    res.writeHead(200, { 'content-length': '100' });
    res.write('{"status":"ok"');
    setTimeout(() => res.socket?.destroy(), 20);
  });
  assert.match((await failure(cut.url)).reason, /connection (closed after 14 bytes of the body|reset by)/);
  const reset = await serve((req) => req.socket.destroy());
  assert.is(
    (await failure(reset.url)).reason,
    `connection reset by 127.0.0.1:${reset.port} before a complete response`,
  );
});

test('an unresolvable host fails quickly with its name', async () => {
  assert.is(
    (await failure('http://no-such-host.invalid/api/health')).reason,
    'cannot resolve host no-such-host.invalid',
  );
});

test('a URL it cannot use is a reason too: httpGet never rejects', async () => {
  const result = await httpGet('not a url', { timeout: 2000 });
  assert.equal({ ...result, ms: 0 }, { reached: false, reason: 'Invalid URL', ms: 0 });
});

test.run();
