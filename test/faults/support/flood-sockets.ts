// Many sockets of one device token, run as a process of its own so that its sending never delays the test's honest
// device: half send at the device message rate's pace, half at three times it; each socket, however it is closed,
// opens again a quarter of a second later, so the flood lasts as long as it is told.
// Usage: node --import tsx flood-sockets.ts <backend url> <sockets> <milliseconds>, the token in FLOOD_TOKEN and the
// device in FLOOD_DEVICE. Prints one JSON line (sockets opened, closes by code, reasons by text, frames sent).
import WebSocket from 'ws';
import { DEVICE_MESSAGE_RATE, DEVICE_SOCKET_PATH } from '../../../lib/device-protocol.ts';

const [baseUrl, socketsArg, msArg] = process.argv.slice(2);
const token = process.env.FLOOD_TOKEN ?? '';
const deviceId = process.env.FLOOD_DEVICE ?? '';
const wsUrl = `${baseUrl!.replace(/^http/, 'ws')}${DEVICE_SOCKET_PATH}`;
const TICK_MS = 10;
const REOPEN_MS = 250;
const tally = { opened: 0, sent: 0, closes: {} as Record<string, number>, reasons: {} as Record<string, number> };
const count = (into: Record<string, number>, key: string) => (into[key] = (into[key] ?? 0) + 1);
let stopping = false;

/** One client: opens, says hello, sends `perSecond` frames of five readings each, and opens again when closed. */
function client(index: number, perSecond: number) {
  const session = `flood-${process.pid}-${index}-${tally.opened}`;
  const ws = new WebSocket(wsUrl, { headers: { Authorization: `Bearer ${token}` }, perMessageDeflate: false });
  let seq = 0;
  let timer: NodeJS.Timeout | undefined;
  ws.on('open', () => {
    tally.opened += 1;
    ws.send(JSON.stringify({ type: 'hello', deviceId, session }));
    let owed = 0;
    timer = setInterval(() => {
      for (owed += (perSecond * TICK_MS) / 1000; owed >= 1 && ws.readyState === WebSocket.OPEN; owed -= 1) {
        const timestamp = new Date().toISOString();
        const readings = Array.from({ length: 5 }, () => ({ seq: ++seq, timestamp, value: `flood-${seq}` }));
        ws.send(JSON.stringify({ type: 'readings', deviceId, session, readings }));
        tally.sent += 1;
      }
    }, TICK_MS);
  });
  ws.on('error', () => {});
  ws.on('close', (code, reason) => {
    clearInterval(timer);
    count(tally.closes, String(code));
    count(tally.reasons, reason.toString());
    if (!stopping) setTimeout(() => client(index, perSecond), REOPEN_MS);
  });
  return ws;
}

const rate = DEVICE_MESSAGE_RATE.perSecond;
const sockets = Array.from({ length: Number(socketsArg) }, (_, i) => client(i, i % 2 === 0 ? rate * 0.9 : rate * 3));
setTimeout(() => {
  stopping = true;
  for (const ws of sockets) ws.terminate();
  console.log(JSON.stringify(tally));
  setTimeout(() => process.exit(0), 100);
}, Number(msArg));
