// Starts a node:http server on a free loopback port and returns its URL and an awaited close.
import { createServer, type RequestListener, type Server } from 'node:http';

export interface Listening {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

export function listen(handler: RequestListener | Server, host = '127.0.0.1'): Promise<Listening> {
  const server = typeof handler === 'function' ? createServer(handler) : handler;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shown}:${port}`,
        port,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
