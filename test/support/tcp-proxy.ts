// Test helper: a TCP proxy on a free port in front of a server (the backend's way to its database), whose link can
// be cut — every connection reset, new ones reset as they arrive — and healed again, on the same port.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Connections accepted so far (reset ones included). */
  readonly accepted: number;
  /** Resets every open connection (both sides see ECONNRESET) and every new one until heal(). */
  cut(): void;
  heal(): void;
  readonly isCut: boolean;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let cut = false;
  let accepted = 0;
  const reset = ([client, upstream]: [Socket, Socket]) => {
    client.resetAndDestroy();
    upstream.resetAndDestroy();
  };
  const server: Server = createServer((client) => {
    accepted += 1;
    // Kept listening while cut, so the port stays ours; a connection that arrives then is reset at once, as a
    // firewall's reject would answer it.
    if (cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      if (!pairs.delete(pair)) return;
      client.destroy();
      upstream.destroy();
    };
    for (const socket of pair) {
      socket.setNoDelay(true);
      socket.on('error', end);
      socket.on('close', end);
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    get accepted() {
      return accepted;
    },
    cut() {
      cut = true;
      for (const pair of pairs) reset(pair);
      pairs.clear();
    },
    heal() {
      cut = false;
    },
    get isCut() {
      return cut;
    },
    async close() {
      for (const pair of pairs) reset(pair);
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
