// The backend container's health check (spec 4.5): GET http://localhost:3001/api/health, exit 0 on 200, else 1.
// Only node: imports, so the image can compile it to plain JavaScript and run it with bare `node` every 30 s
// without loading tsx (see `npm run build:healthcheck`). It also runs through tsx, as the tests do.
import { request, type RequestOptions } from 'node:http';
import { lookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';

const HOST = 'localhost';
const PATH = '/api/health';
const TIMEOUT_MS = 5000;

// Only the tests set PORT; the container's backend listens on the default.
const rawPort = process.env.PORT?.trim() || '3001';
const port = /^\d{1,5}$/.test(rawPort) ? Number(rawPort) : NaN;
if (!(port >= 1 && port <= 65535)) fail(`healthcheck: PORT=${rawPort} is not valid: expected a port number from 1 to 65535`);
const target = `GET http://${HOST}:${port}${PATH}`;

// One deadline for the whole exchange (connect, headers), not an idle timeout: a server that trickles bytes
// must not keep the check alive past 5 s.
const deadline = setTimeout(() => {
  req.destroy();
  fail(`healthcheck: ${target} timed out after ${TIMEOUT_MS} ms`);
}, TIMEOUT_MS);

// autoSelectFamily (on by default since Node 20, said here on purpose) is missing from @types/node 20's type.
const options: RequestOptions & { autoSelectFamily: boolean } = {
  host: HOST, port, path: PATH, method: 'GET', agent: false, lookup: bothLoopbacks, autoSelectFamily: true,
};
const req = request(options, function onResponse(res) {
  clearTimeout(deadline);
  if (res.statusCode === 200) process.exit(0);
  fail(`healthcheck: ${target} answered status ${res.statusCode}`);
});
req.on('error', function onError(error) {
  clearTimeout(deadline);
  fail(`healthcheck: ${target} failed: ${describe(error)}`);
});
req.end();

/**
 * `localhost` as the system resolves it, plus whichever of 127.0.0.1 and ::1 is missing: /etc/hosts often
 * lists only one, and the backend may listen on IPv4 only (HOST=0.0.0.0) or IPv6 only (HOST=::1).
 * With autoSelectFamily the socket then tries each address in turn.
 */
function bothLoopbacks(hostname: string, options: LookupOptions, callback: (...args: any[]) => void): void {
  lookup(hostname, { ...options, all: true }, (error, found) => {
    const addresses: LookupAddress[] = error ? [] : [...found];
    for (const loopback of [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]) {
      if (!addresses.some((a) => a.address === loopback.address)) addresses.push(loopback);
    }
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/** When every address fails, Node reports an AggregateError whose own message is empty: name each try. */
function describe(error: Error): string {
  const inner = error instanceof AggregateError ? error.errors.filter((e): e is Error => e instanceof Error) : [];
  if (inner.length > 0) return inner.map((e) => e.message).join('; ');
  return error.message || (error as NodeJS.ErrnoException).code || String(error);
}

function fail(message: string): never {
  // stderr is synchronous for pipes and files on Linux, so the line is out before the exit.
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
