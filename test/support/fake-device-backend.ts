// Test helper: a minimal in-process backend device socket (ws) that stores readings once per (session, seq) and
// acknowledges each frame as the real backend does: `{type:'ack', session, seq, refused?}`, after "storing".
import { createServer, type Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  CLOSE_POLICY,
  DEVICE_MAX_PAYLOAD,
  DEVICE_SOCKET_PATH,
  inFlightHeaderLine,
  parseDeviceMessage,
  rateHeaderLine,
  readingsOf,
  type AckMessage,
  type DeviceMessage,
  type Reading,
} from '../../lib/device-protocol.ts';
import { createTokenBucket } from '../../lib/token-bucket.ts';

export interface FakeBackend {
  port: number;
  /** ws://127.0.0.1:PORT/api/device/socket */
  url: string;
  /** Every message received, in arrival order (including resends). */
  received: DeviceMessage[];
  /** The byte length of every frame received, in arrival order. */
  frameBytes: number[];
  /** Readings stored once per (session, seq), like the real backend; refused ones are not stored. */
  stored: Array<{ session: string; seq: number; value: string }>;
  /** Every ack sent, in order. */
  acks: AckMessage[];
  /** Close codes of device sockets that ended. */
  closeCodes: number[];
  /** Pings received: one arriving after a frame shows the device sent nothing more in between. */
  pings: number;
  readonly connections: number;
  /** When false, readings are recorded but not acked (the device must keep them). */
  acking: boolean;
  /** Readings to refuse (acknowledged as `refused`, never stored), as the real backend refuses a bad timestamp. */
  refuse: (reading: Reading) => boolean;
  /** When set, an upgrade without `Authorization: Bearer <token>` gets 401, as from the real backend. */
  token: string | undefined;
  /** The Authorization header of every upgrade attempt, in order (undefined: none sent). */
  authorizations: Array<string | undefined>;
  /** Acks every reading received so far and not acked yet (after `acking` was false), per session. */
  ackReceived(): void;
  /** Closes every socket with `code` (1013: the backend dropped what it held). */
  closeAll(code: number): void;
  /** Stops reading every socket (no pongs, no acks) while keeping it open: a SIGSTOPped peer. */
  silence(): void;
  /** Destroys every socket and stops listening: a killed process. */
  kill(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
}

export interface FakeBackendOptions {
  port?: number;
  /** Messages a socket may send (a token bucket); beyond it the socket is closed with 1008, as by the backend. */
  rate?: { perSecond: number; burst: number };
  /** Says `rate` in the upgrade's answer (DEVICE_RATE_HEADER), as the backend does; else says none, as older ones. */
  saysRate?: boolean;
  /** Says this in-flight bound in the upgrade's answer (DEVICE_IN_FLIGHT_HEADER); else says none, as older ones. */
  saysInFlight?: number;
}

export async function startFakeBackend(options: FakeBackendOptions = {}): Promise<FakeBackend> {
  const { port = 0, rate, saysRate, saysInFlight } = options;
  const storedKeys = new Set<string>();
  const sockets = new Set<WebSocket>();
  // What each socket received and has not had acked, per session: for ackReceived().
  const unacked = new Map<WebSocket, Map<string, { seq: number; refused: number[] }>>();
  let server: Server;
  let wss: WebSocketServer;

  function ack(ws: WebSocket, session: string, seq: number, refused: number[]) {
    const message: AckMessage = { type: 'ack', session, seq, ...(refused.length > 0 ? { refused } : {}) };
    fake.acks.push(message);
    ws.send(JSON.stringify(message));
  }

  const listen = (onPort: number) =>
    new Promise<number>((resolve, reject) => {
      server = createServer((_req, res) => res.writeHead(404).end());
      wss = new WebSocketServer({
        server,
        path: DEVICE_SOCKET_PATH,
        maxPayload: DEVICE_MAX_PAYLOAD, // a larger frame closes the socket with 1009, as at the backend
        verifyClient: ({ req }, done) => {
          fake.authorizations.push(req.headers.authorization);
          if (fake.token === undefined || req.headers.authorization === `Bearer ${fake.token}`) done(true);
          else done(false, 401);
        },
      });
      if (rate && saysRate) wss.on('headers', (headers) => headers.push(rateHeaderLine(rate)));
      if (saysInFlight) wss.on('headers', (headers) => headers.push(inFlightHeaderLine(saysInFlight)));
      wss.on('connection', (ws) => {
        sockets.add(ws);
        unacked.set(ws, new Map());
        const bucket = rate && createTokenBucket(rate);
        ws.on('ping', () => {
          fake.pings += 1;
        });
        ws.on('close', (code) => {
          sockets.delete(ws);
          unacked.delete(ws);
          fake.closeCodes.push(code);
        });
        ws.on('message', (data) => {
          if (bucket && !bucket.take()) {
            ws.close(CLOSE_POLICY, 'message rate exceeded');
            return;
          }
          const text = data.toString();
          const message = parseDeviceMessage(text);
          if (!message) return;
          fake.received.push(message);
          fake.frameBytes.push(Buffer.byteLength(text));
          if (message.type === 'hello') return;
          const refused: number[] = [];
          for (const reading of readingsOf(message)) {
            const key = `${message.session}:${reading.seq}`;
            if (fake.refuse(reading)) refused.push(reading.seq);
            else if (!storedKeys.has(key)) {
              storedKeys.add(key);
              fake.stored.push({ session: message.session, seq: reading.seq, value: reading.value });
            }
          }
          // A declared loss settles its ranges: acknowledged past like readings (the fake keeps no gap apart).
          const last = message.type === 'lost' ? message.ranges.at(-1)![1] : readingsOf(message).at(-1)!.seq;
          if (fake.acking) {
            ack(ws, message.session, last, refused);
            return;
          }
          const pending = unacked.get(ws)!;
          const held = pending.get(message.session) ?? { seq: 0, refused: [] };
          pending.set(message.session, { seq: Math.max(held.seq, last), refused: [...held.refused, ...refused] });
        });
      });
      server.once('error', reject);
      server.listen(onPort, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });

  const actualPort = await listen(port);
  const fake: FakeBackend = {
    port: actualPort,
    url: `ws://127.0.0.1:${actualPort}${DEVICE_SOCKET_PATH}`,
    received: [],
    frameBytes: [],
    stored: [],
    acks: [],
    closeCodes: [],
    pings: 0,
    get connections() {
      return sockets.size;
    },
    acking: true,
    refuse: () => false,
    token: undefined,
    authorizations: [],
    ackReceived() {
      for (const [ws, pending] of unacked) {
        for (const [session, { seq, refused }] of pending) ack(ws, session, seq, refused);
        pending.clear();
      }
    },
    closeAll(code) {
      for (const ws of sockets) ws.close(code, 'test');
    },
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
