// A free TCP port, for processes that must be told their port before they start (the local stack's database, a URL
// nothing listens on); a server that can bind port 0 itself should do that and say its port instead.
import { createServer } from 'node:net';

/**
 * Ports this process has handed out already. The kernel may offer a port again as soon as it is closed, so two
 * calls in a row (a stack's backend and frontend) could name the same port: a port is handed out once.
 */
const handedOut = new Set<number>();
const ATTEMPTS = 50;

/** A port nothing listens on right now on `host`, and not handed out before by this process. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = await unusedPort(host);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port on ${host} that was not handed out already, in ${ATTEMPTS} tries`);
}

/** A port the kernel chose as free: another process may take it before it is used. */
function unusedPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
