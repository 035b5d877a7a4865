// Checks up front that a port can be listened on, so "port in use" is reported before any service starts.
import { createServer } from 'node:net';

/** Undefined when `port` is free on `host` (unset: every interface, as the services listen); else why not. */
export async function portProblem(port: number, host?: string): Promise<string | undefined> {
  const hosts = host ? [host] : ['::', '0.0.0.0'];
  let last: NodeJS.ErrnoException | undefined;
  for (const hostname of hosts) {
    last = await tryListen(port, hostname);
    if (!last) return undefined;
    if (last.code !== 'EAFNOSUPPORT' && last.code !== 'EADDRNOTAVAIL') break; // no IPv6: try IPv4
  }
  if (last?.code === 'EADDRINUSE') return `port ${port} is already in use`;
  if (last?.code === 'EACCES') return `no permission to listen on port ${port}`;
  return `cannot listen on port ${port}: ${last?.message}`;
}

function tryListen(port: number, host: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}
