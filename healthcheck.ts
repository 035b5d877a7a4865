// The backend container's health check (docs/contract.md#container-health-checks):
// GET http://localhost:3001/api/health (https:// when the service serves TLS); exit 0 on 200, else 1.
// It starts every 30 s, so it is built to start cheaply (test/bench/healthcheck.bench.ts measures it): the image
// compiles it to CommonJS (`npm run build:healthcheck`) and runs /app/healthcheck.cjs with plain node, and it
// speaks its one HTTP/1.1 exchange over node:net instead of loading node:http's client.
// It reads PORT (the device image reuses the check on 3003) and HEALTHCHECK_TIMEOUT_MS (default 5000; the tests
// shorten it), and TLS_CERT_FILE: when set, the service serves HTTPS (lib/tls-setting.ts) and so does the check.
// Also runs through tsx.
import { connect, type Socket } from 'node:net';

const HOST = 'localhost';
const PATH = '/api/health';
// `localhost` is loopback by definition (RFC 6761), so no resolver is asked. IPv4 first: a backend on `::`
// (dual-stack) or 0.0.0.0 accepts it; IPv6 next, for a backend bound to ::1 only.
const LOOPBACKS = ['127.0.0.1', '::1'];
// Errors that mean "nothing listens at this address", so the other loopback is worth a try.
const TRY_NEXT = new Set(['ECONNREFUSED', 'EADDRNOTAVAIL', 'EAFNOSUPPORT', 'ENETUNREACH', 'EHOSTUNREACH']);
// Status line and headers of a real answer fit easily; more without a status line is not HTTP.
const MAX_HEAD_BYTES = 16 * 1024;

const rawPort = process.env.PORT?.trim() || '3001';
const port = /^\d{1,5}$/.test(rawPort) ? Number(rawPort) : NaN;
if (!(port >= 1 && port <= 65535))
  fail(`healthcheck: PORT=${rawPort} is not valid: expected a port number from 1 to 65535`);
const rawTimeout = process.env.HEALTHCHECK_TIMEOUT_MS?.trim() || '5000';
const timeoutMs = /^\d{1,7}$/.test(rawTimeout) ? Number(rawTimeout) : NaN;
if (!(timeoutMs >= 1))
  fail(`healthcheck: HEALTHCHECK_TIMEOUT_MS=${rawTimeout} is not valid: expected a whole number of milliseconds`);
// The service's certificate is not checked: it names the public host, not localhost; the check dials loopback
// itself, sends no credential and learns only a status, and whoever could answer in the service's place on the
// container's loopback already runs inside the container. node:tls is loaded only then (it costs ~13 ms).
const tls = process.env.TLS_CERT_FILE?.trim() ? process.getBuiltinModule('node:tls') : undefined;
const target = `GET ${tls ? 'https' : 'http'}://${HOST}:${port}${PATH}`;

let socket: Socket | undefined;
// One deadline for the whole exchange (connect and status line), not an idle timeout: a server that
// trickles bytes must not keep the check alive past it.
setTimeout(() => {
  socket?.destroy();
  fail(`healthcheck: ${target} timed out after ${timeoutMs} ms`);
}, timeoutMs);

const errors: string[] = [];
attempt(0);

function attempt(index: number): void {
  const host = LOOPBACKS[index]!;
  const current = tls ? tls.connect({ host, port, rejectUnauthorized: false }) : connect({ host, port });
  socket = current;
  let head = '';
  current.setEncoding('latin1');
  // write, not end: many servers (node:http among them) close at once when the client half-closes.
  current.on(tls ? 'secureConnect' : 'connect', () => {
    current.write(`GET ${PATH} HTTP/1.1\r\nHost: ${HOST}:${port}\r\nConnection: close\r\n\r\n`);
  });
  current.on('data', (chunk: string) => {
    head += chunk;
    for (;;) {
      const lineEnd = head.indexOf('\r\n');
      if (lineEnd === -1) {
        if (head.length > MAX_HEAD_BYTES) fail(`healthcheck: ${target} failed: the answer is not HTTP`);
        return;
      }
      const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(head.slice(0, lineEnd))?.[1];
      if (status === undefined)
        fail(`healthcheck: ${target} failed: the answer is not HTTP: ${JSON.stringify(head.slice(0, 40))}`);
      // 1xx answers (103 Early Hints...) come before the real one: skip their header block.
      if (status.startsWith('1') && status !== '101') {
        const blockEnd = head.indexOf('\r\n\r\n');
        if (blockEnd === -1) return;
        head = head.slice(blockEnd + 4);
        continue;
      }
      if (status === '200') process.exit(0);
      fail(`healthcheck: ${target} answered status ${status}`);
    }
  });
  current.on('end', () => fail(`healthcheck: ${target} failed: the connection closed before a status line`));
  current.on('error', (error: NodeJS.ErrnoException) => {
    errors.push(error.message);
    if (index + 1 < LOOPBACKS.length && TRY_NEXT.has(error.code ?? '')) return attempt(index + 1);
    fail(`healthcheck: ${target} failed: ${errors.join('; ')}`);
  });
}

function fail(message: string): never {
  // stderr is synchronous for pipes and files on Linux, so the line is out before the exit.
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
