// A hostile device-socket client, run as its own process so its busy loops never delay the probe hammer's
// measurements. Usage: node --import tsx socket-attacker.ts <scenario> <backend url> [count]; the token the
// authenticated scenarios use comes from ATTACK_TOKEN. Prints one JSON line with what it saw, then exits.
import { request } from 'node:http';
import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { DEVICE_SOCKET_PATH } from '../../../lib/device-protocol.ts';
import { frame, OPCODE, rawUpgrade } from '../../support/raw-device-socket.ts';
import { withDeadline } from '../../../lib/with-deadline.ts';

const [scenario, baseUrl, countArg] = process.argv.slice(2);
const token = process.env.ATTACK_TOKEN ?? '';
const url = new URL(baseUrl!);
const wsUrl = `ws://${url.host}${DEVICE_SOCKET_PATH}`;
const count = Number(countArg ?? 1);
// A session of its own per process: a later attacker's readings are new readings, not resends.
const session = `attack-${process.pid}`;
const hello = (deviceId: string) => JSON.stringify({ type: 'hello', deviceId, session });
const reading = (deviceId: string, seq: number) =>
  JSON.stringify({
    type: 'reading',
    deviceId,
    session,
    seq,
    timestamp: new Date().toISOString(),
    value: `attack-${seq}`,
  });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const tally = (values: Array<string | number>) =>
  values.reduce<Record<string, number>>((t, v) => ((t[v] = (t[v] ?? 0) + 1), t), {});

/** One upgrade attempt over plain HTTP: the status line the backend answered with (101 would be a failure). */
function attempt(authorization: string | undefined): Promise<number | string> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = {
      Connection: 'Upgrade',
      Upgrade: 'websocket',
      'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
    };
    if (authorization) headers.Authorization = authorization;
    const req = request({
      host: url.hostname,
      port: url.port,
      path: DEVICE_SOCKET_PATH,
      headers,
      agent: false,
      timeout: 5000,
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve(101);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

/** Runs `task(i)` for i < total with at most `parallel` at once. */
async function pool<T>(total: number, parallel: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < total) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

function open(): Promise<{ ws: WebSocket; closed: Promise<{ code: number; reason: string; at: number }> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, {
      headers: { Authorization: `Bearer ${token}` },
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
    });
    const closed = new Promise<{ code: number; reason: string; at: number }>((done) =>
      ws.on('close', (code, reason) => done({ code, reason: String(reason), at: performance.now() })),
    );
    ws.on('error', () => {}); // the close code says what happened
    ws.once('open', () => resolve({ ws, closed }));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
    closed.then(() => reject(new Error('closed before opening')));
  });
}

const scenarios: Record<string, () => Promise<Record<string, unknown>>> = {
  /** `count` upgrades without the token: none, a wrong one, Basic, the right one in the wrong case. */
  async unauthenticated() {
    const kinds = [
      undefined,
      'Bearer not-the-token-0123456789abcdef',
      `Basic ${Buffer.from(`device:${token}`).toString('base64')}`,
      `Bearer ${token.toUpperCase()}`,
    ];
    const statuses = await pool(count, 50, (i) => attempt(kinds[i % kinds.length]));
    return { statuses: tally(statuses) };
  },
  /**
   * `count` authenticated sockets that never say hello: how long after its upgrade request (which the backend's
   * timer cannot precede) and after its open event (which cannot precede the timer) the backend closed each.
   */
  async silent() {
    const started = performance.now();
    const sockets = await pool(count, 50, async () => {
      const requestedAt = performance.now();
      const { closed } = await open();
      return { requestedAt, openedAt: performance.now(), closed };
    });
    const openedIn = performance.now() - started;
    const closes = await Promise.all(
      sockets.map(async ({ requestedAt, openedAt, closed }) => ({
        ...(await closed),
        sinceRequest: (await closed).at - requestedAt,
        sinceOpen: (await closed).at - openedAt,
      })),
    );
    const sinceRequest = closes.map((c) => c.sinceRequest);
    const sinceOpen = closes.map((c) => c.sinceOpen);
    return {
      opened: sockets.length,
      openedInMs: Math.round(openedIn),
      codes: tally(closes.map((c) => c.code)),
      closedAfterMs: {
        minSinceRequest: Math.round(Math.min(...sinceRequest)),
        maxSinceOpen: Math.round(Math.max(...sinceOpen)),
      },
    };
  },
  /**
   * One socket: hello, then `count` garbage frames (text that is no message, and binary noise) as fast as it can,
   * all of them whether or not the backend has closed the socket meanwhile.
   */
  async garbage() {
    const { ws, closed } = await open();
    ws.send(hello('garbage-device'));
    let sent = 0;
    while (sent < count) {
      for (let i = 0; i < 500 && sent < count; i++, sent++) {
        if (sent % 3 === 0) ws.send(randomBytes(32));
        else
          ws.send(
            sent % 3 === 1 ? `{"type":"reading","seq":${sent}` : `garbage ${sent} ${randomBytes(8).toString('hex')}`,
          );
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    const { code, reason } = await closed;
    return { sent, code, reason };
  },
  /** One socket: hello, then a single 1 MiB frame. */
  async oversize() {
    const { ws, closed } = await open();
    ws.send(hello('oversize-device'));
    ws.send('x'.repeat(1024 * 1024));
    const { code } = await closed;
    return { code };
  },
  /** One socket: hello as one device, a reading as it (acknowledged once stored), then one claiming another device. */
  async 'second-device'() {
    const { ws, closed } = await open();
    const acks: string[] = [];
    const acked = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        const ack = JSON.parse(String(data));
        acks.push(`${ack.session === session ? 'own session' : ack.session}:${ack.seq}`);
        resolve();
      }),
    );
    ws.send(hello('claimer'));
    ws.send(reading('claimer', 1));
    await acked;
    ws.send(reading('victim', 1));
    const { code, reason } = await closed;
    return { code, reason, acks };
  },
  /** A bare TCP socket: upgrades, says hello, sends `count` readings at 40 a second, and never reads a byte. */
  async slow() {
    const socket = await rawUpgrade(Number(url.port), token);
    let closed = false;
    socket.once('close', () => (closed = true));
    socket.write(frame(OPCODE.text, hello('slow-reader')));
    let sent = 0;
    while (sent < count && !closed) {
      socket.write(frame(OPCODE.text, reading('slow-reader', ++sent)));
      await sleep(25);
    }
    const stillOpen = !closed;
    // A backend drops the readings it has not stored yet when their socket closes (a device resends them; this
    // client would not): read the acks at last, and close once the last reading is acknowledged.
    process.stderr.write(`sent ${sent} readings; waiting for their ack\n`);
    if (!closed) await withDeadline(acknowledged(socket, sent), 30_000, `the ack of reading ${sent}`);
    socket.end();
    if (!closed) await new Promise((resolve) => socket.once('close', resolve));
    return { sent, stillOpen };
  },
};

/**
 * Reads the paused socket's frames from the backend until an ack reaches `seq` (acks are cumulative), or it closes.
 * Its frames are unmasked text: the `"seq":N` of each ack can be read off the bytes without parsing the framing.
 */
function acknowledged(socket: Socket, seq: number): Promise<void> {
  return new Promise((resolve) => {
    let tail = '';
    socket.on('data', (chunk: Buffer) => {
      const text = tail + chunk.toString('latin1');
      const seen = [...text.matchAll(/"seq":(\d+)/g)].map((m) => Number(m[1]));
      if (seen.some((n) => n >= seq)) resolve();
      tail = text.slice(-32); // an ack split across two chunks
    });
    socket.once('close', () => resolve());
    socket.resume();
  });
}

const run = scenarios[scenario ?? ''];
if (!run) {
  process.stderr.write(
    `socket-attacker: unknown scenario "${scenario}"; one of ${Object.keys(scenarios).join(', ')}\n`,
  );
  process.exit(2);
}
const result = await run();
process.stdout.write(`${JSON.stringify({ scenario, ...result })}\n`);
process.exit(0);
