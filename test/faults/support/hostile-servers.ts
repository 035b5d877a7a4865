// Servers that misbehave below HTTP: they hang, trickle bytes forever, answer garbage or reset the connection.
import { createServer, type Server, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';

type Behaviour = (socket: Socket) => void;

/** Writes `chunk` every `everyMs` until the socket closes (the timer dies with it). */
const drip = (socket: Socket, first: string, chunk: () => string | Buffer, everyMs: number) => {
  socket.write(first);
  const timer = setInterval(() => socket.writable && socket.write(chunk()), everyMs);
  socket.once('close', () => clearInterval(timer));
};

export const hostile: Record<string, Behaviour> = {
  // Accepts and never answers a byte.
  hang: () => {},
  // Valid headers, then a body that arrives one byte every 100 ms and never ends: no read ever goes idle.
  trickle: (socket) =>
    drip(
      socket,
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"status":"ok",',
      () => ' ',
      100,
    ),
  // Headers that never finish: one more header byte every 100 ms.
  'endless-headers': (socket) => drip(socket, 'HTTP/1.1 200 OK\r\nX-Filler: ', () => 'a', 100),
  // Binary noise instead of HTTP, and the connection stays open.
  garbage: (socket) => drip(socket, '', () => randomBytes(64), 50),
  // Binary noise, then the connection is closed.
  'garbage-close': (socket) => socket.end(randomBytes(512)),
  // The connection is reset as soon as it is accepted.
  reset: (socket) => socket.resetAndDestroy(),
};

export interface HostileServer {
  url: string;
  close(): Promise<void>;
}

export function startHostile(name: keyof typeof hostile): Promise<HostileServer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {}); // the client giving up is the expected end
    hostile[name]!(socket);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
