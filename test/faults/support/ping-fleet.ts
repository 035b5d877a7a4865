// A fleet of busy devices in a process of its own, each judging its socket's silence as device/link/backend-link.ts
// does: every device sends FRAMES frames near DEVICE_MAX_PAYLOAD at once, pings every PING_MS, and notes the longest
// time it heard nothing (no pong, no message). Prints one JSON line once every reading is acknowledged (or at
// DEADLINE_MS): `{ acked, expected, maxSilentMs, overLimit, closes, maxLagMs }` (closes: code → sockets; maxLagMs: this
// process's own event-loop lag), `overLimit` counting devices that would have dropped the link.
import WebSocket from 'ws';
import { DEVICE_MAX_PAYLOAD, DEVICE_SOCKET_PATH, helloFrame, parseAck } from '../../../lib/device-protocol.ts';
import { TEST_DEVICE_TOKEN } from '../../support/spawn-service.ts';

const env = (name: string) => Number(process.env[name]);
const url = String(process.env.BACKEND_URL).replace(/^http/, 'ws') + DEVICE_SOCKET_PATH;
const [fleet, frames, pingMs, limitMs, deadlineMs] = [
  env('FLEET'),
  env('FRAMES'),
  env('PING_MS'),
  env('SILENCE_LIMIT_MS'),
  env('DEADLINE_MS'),
];
const PER_FRAME = 7;
// Seven readings of this value, with their seq and timestamp, come to just under DEVICE_MAX_PAYLOAD.
const VALUE = 'v'.repeat(Math.floor(DEVICE_MAX_PAYLOAD / PER_FRAME) - 120);

const at = new Date().toISOString();
const READINGS = Array.from({ length: frames }, (_, f) =>
  JSON.stringify(
    Array.from({ length: PER_FRAME }, (_, r) => ({ seq: f * PER_FRAME + r + 1, timestamp: at, value: VALUE })),
  ),
);

interface Device {
  acked: number;
  maxSilentMs: number;
  closes: number[];
}

function startDevice(i: number): Device {
  const device: Device = { acked: 0, maxSilentMs: 0, closes: [] };
  const deviceId = `busy-${i}`;
  const session = `s-${process.pid}`;
  const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${TEST_DEVICE_TOKEN}` } });
  let lastHeard = Date.now();
  const heard = () => (lastHeard = Date.now());
  ws.on('error', () => {});
  ws.on('pong', heard);
  ws.on('message', (data) => {
    heard();
    const ack = parseAck(String(data));
    if (ack?.session === session) device.acked = Math.max(device.acked, ack.seq);
  });
  ws.on('close', (code) => device.closes.push(code));
  ws.on('open', () => {
    heard();
    ws.send(helloFrame(deviceId, session));
    // A frame a turn, the readings' text made once for the whole fleet: this process stays responsive.
    const send = (f: number) => {
      if (f >= frames || ws.readyState !== WebSocket.OPEN) return;
      ws.send(`{"type":"readings","deviceId":"${deviceId}","session":"${session}","readings":${READINGS[f]}}`);
      setImmediate(() => send(f + 1));
    };
    send(0);
    const timer = setInterval(() => {
      if (ws.readyState !== WebSocket.OPEN) return clearInterval(timer);
      device.maxSilentMs = Math.max(device.maxSilentMs, Date.now() - lastHeard);
      ws.ping();
    }, pingMs);
  });
  return device;
}

const devices = Array.from({ length: fleet }, (_, i) => startDevice(i));
// This process's own event-loop lag: silence it measures while it was itself stalled is not the backend's.
let maxLagMs = 0;
let tick = performance.now();
setInterval(() => {
  maxLagMs = Math.max(maxLagMs, performance.now() - tick - 100);
  tick = performance.now();
}, 100);
const expected = fleet * frames * PER_FRAME;
const started = Date.now();
const check = setInterval(() => {
  const acked = devices.reduce((sum, d) => sum + d.acked, 0);
  if (acked < expected && Date.now() - started < deadlineMs) return;
  clearInterval(check);
  const maxSilentMs = Math.max(...devices.map((d) => d.maxSilentMs));
  const overLimit = devices.filter((d) => d.maxSilentMs > limitMs).length;
  const closes: Record<string, number> = {};
  for (const code of devices.flatMap((d) => d.closes)) closes[code] = (closes[code] ?? 0) + 1;
  console.log(JSON.stringify({ acked, expected, maxSilentMs, overLimit, closes, maxLagMs: Math.round(maxLagMs) }));
  process.exit(0);
}, 50);
