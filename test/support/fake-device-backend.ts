// Test helper: a minimal in-process backend device socket (ws) that stores readings once and acks them.
import { createServer, type Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { DEVICE_SOCKET_PATH, parseDeviceMessage, type DeviceMessage } from '../../lib/device-protocol.ts';

export interface FakeBackend {
  port: number;
  /** ws://127.0.0.1:PORT/api/device/socket */
  url: string;
  /** Every message received, in arrival order (including resends). */
  received: DeviceMessage[];
  /** Readings stored once per (session, seq), like the real backend. */
  stored: Array<{ session: string; seq: number; value: string }>;
  /** Close codes of device sockets that ended. */
  closeCodes: number[];
  readonly connections: number;
  /** When false, readings are recorded but not acked (the device must keep them). */
  acking: boolean;
  /** When set, an upgrade without `Authorization: Bearer <token>` gets 401, as from the real backend. */
  token: string | undefined;
  /** The Authorization header of every upgrade attempt, in order (undefined: none sent). */
  authorizations: Array<string | undefined>;
  /** Stops reading every socket (no pongs, no acks) while keeping it open: a SIGSTOPped peer. */
  silence(): void;
  /** Destroys every socket and stops listening: a killed process. */
  kill(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
}

export async function startFakeBackend(port = 0): Promise<FakeBackend> {
  const received: DeviceMessage[] = [];
  const stored: FakeBackend['stored'] = [];
  const closeCodes: number[] = [];
  const sockets = new Set<WebSocket>();
  const lastSeq = new Map<string, number>();
  let server: Server;
  let wss: WebSocketServer;

  const listen = (onPort: number) =>
    new Promise<number>((resolve, reject) => {
      server = createServer((_req, res) => res.writeHead(404).end());
      wss = new WebSocketServer({
        server,
        path: DEVICE_SOCKET_PATH,
        verifyClient: ({ req }, done) => {
          fake.authorizations.push(req.headers.authorization);
          if (fake.token === undefined || req.headers.authorization === `Bearer ${fake.token}`) done(true);
          else done(false, 401);
        },
      });
      wss.on('connection', (ws) => {
        sockets.add(ws);
        ws.on('close', (code) => {
          sockets.delete(ws);
          closeCodes.push(code);
        });
        ws.on('message', (data) => {
          const message = parseDeviceMessage(data.toString());
          if (!message) return;
          received.push(message);
          if (message.type !== 'reading') return;
          const last = lastSeq.get(message.session) ?? 0;
          if (message.seq > last) {
            lastSeq.set(message.session, message.seq);
            stored.push({ session: message.session, seq: message.seq, value: message.value });
          }
          if (fake.acking) ws.send(JSON.stringify({ type: 'ack', seq: lastSeq.get(message.session) }));
        });
      });
      server.once('error', reject);
      server.listen(onPort, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });

  const actualPort = await listen(port);
  const fake: FakeBackend = {
    port: actualPort,
    url: `ws://127.0.0.1:${actualPort}${DEVICE_SOCKET_PATH}`,
    received,
    stored,
    closeCodes,
    get connections() {
      return sockets.size;
    },
    acking: true,
    token: undefined,
    authorizations: [],
    silence() {
      for (const ws of sockets) (ws as unknown as { _socket: import('node:net').Socket })._socket.pause();
    },
    async kill() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async restart() {
      await listen(actualPort);
    },
  };
  return fake;
}
