// A free TCP port, for processes that must be told their port before they start (the local stack's database, a URL
// nothing listens on); a server that can bind port 0 itself should do that and say its port instead.
import { createServer } from 'node:net';

/** A port nothing listens on right now on `host`: another process may take it before it is used. */
export function freePort(host = '127.0.0.1'): Promise<number> {
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
