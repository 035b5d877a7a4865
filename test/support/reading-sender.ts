// A device as the backend sees it, without the device service: it makes readings, sends them in `readings` frames
// no more than DEVICE_UNACKED_IN_FLIGHT ahead of the last ack, forgets what an ack covers, and after any close
// reconnects and resends from its oldest unacknowledged reading, as lib/device-protocol.ts asks of a device.
import WebSocket from 'ws';
import { DEVICE_SOCKET_PATH, DEVICE_UNACKED_IN_FLIGHT, parseAck } from '../../lib/device-protocol.ts';
import { TEST_DEVICE_TOKEN } from './spawn-service.ts';

export interface ReadingSender {
  /** Readings made so far (seq 1…made). */
  readonly made: number;
  /** The highest seq acknowledged. */
  readonly acked: number;
  /** Close codes seen, in order. */
  readonly closes: number[];
  /** Adds `count` readings to send. */
  make(count: number): void;
  stop(): void;
}

export function startReadingSender(
  baseUrl: string,
  { deviceId = 'sender', session = `sender-${process.pid}`, perFrame = 100, framesPerSecond = 20 } = {},
): ReadingSender {
  let made = 0;
  let acked = 0;
  let sentUpTo = 0;
  let ws: WebSocket | undefined;
  let stopped = false;
  const closes: number[] = [];
  const url = baseUrl.replace(/^http/, 'ws') + DEVICE_SOCKET_PATH;

  function connect() {
    if (stopped) return;
    const socket = new WebSocket(url, { headers: { Authorization: `Bearer ${TEST_DEVICE_TOKEN}` } });
    ws = socket;
    socket.on('error', () => {});
    socket.on('open', () => {
      sentUpTo = acked; // resend everything unacknowledged on this new socket
      socket.send(JSON.stringify({ type: 'hello', deviceId, session }));
    });
    socket.on('message', (data) => {
      const ack = parseAck(String(data));
      if (ack?.session === session) acked = Math.max(acked, ack.seq);
    });
    socket.on('close', (code) => {
      closes.push(code);
      if (ws === socket) ws = undefined;
      setTimeout(connect, 100).unref();
    });
  }

  const pump = setInterval(() => {
    if (ws?.readyState !== WebSocket.OPEN) return;
    const end = Math.min(made, sentUpTo + perFrame, acked + DEVICE_UNACKED_IN_FLIGHT);
    if (end <= sentUpTo) return;
    const at = new Date().toISOString();
    const readings = [];
    for (let seq = sentUpTo + 1; seq <= end; seq++) readings.push({ seq, timestamp: at, value: `reading ${seq}` });
    ws.send(JSON.stringify({ type: 'readings', deviceId, session, readings }));
    sentUpTo = end;
  }, 1000 / framesPerSecond);
  connect();

  return {
    get made() {
      return made;
    },
    get acked() {
      return acked;
    },
    closes,
    make(count) {
      made += count;
    },
    stop() {
      stopped = true;
      clearInterval(pump);
      ws?.close();
    },
  };
}
