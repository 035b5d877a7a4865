// Starts a node:http server on a free loopback port and returns its URL and an awaited close.
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';

export interface Listening {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/**
 * A server on one loopback address only is reached through `localhost` by trying the other one first, and being
 * refused there. So its port is one that is free on the other loopback too: held there while this one binds. Else
 * another process of a run that happens to listen on that port number (a unit batch runs dozens of servers at
 * once) answers in its place (CI once got a backend's /api/ready where a test's own server was meant).
 */
const OTHER_LOOPBACK: Record<string, string | undefined> = { '127.0.0.1': '::1', '::1': '127.0.0.1' };
const ATTEMPTS = 20;

export async function listen(handler: RequestListener | Server, host = '127.0.0.1'): Promise<Listening> {
  const server = typeof handler === 'function' ? createServer(handler) : handler;
  const other = OTHER_LOOPBACK[host];
  for (let attempt = 1; ; attempt++) {
    const hold = other ? await holdFreePort(other) : undefined;
    try {
      return listening(server, host, await bind(server, host, hold?.port ?? 0));
    } catch (error) {
      const taken = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (!hold || !taken || attempt === ATTEMPTS) throw error;
    } finally {
      await hold?.close();
    }
  }
}

function bind(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}

/** A port the kernel chose on `host`, held until `close`; undefined where `host` cannot be bound (no IPv6). */
function holdFreePort(host: string): Promise<{ port: number; close(): Promise<void> } | undefined> {
  const held = createNetServer();
  return new Promise((resolve) => {
    held.once('error', () => resolve(undefined));
    held.listen(0, host, () => {
      const { port } = held.address() as { port: number };
      resolve({ port, close: () => new Promise<void>((done) => held.close(() => done())) });
    });
  });
}

function listening(server: Server, host: string, port: number): Listening {
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
