// The device thread (device-thread.ts starts it): the device hub, its writers and a MongoDB client of their own. It
// is told each device socket's events and answers with what to do to the socket; parsing frames, BSON, the driver
// and their garbage live here, at a lower priority, so that the thread answering /api/ready never waits for them.
import { parentPort, workerData } from 'node:worker_threads';
import { MongoClient } from 'mongodb';
import { WSContext, type WSEvents } from 'hono/ws';
import { createLogger } from '../../lib/logger.ts';
import { createDeviceHub } from '../device-socket/device-hub.ts';
import { createReadingStore } from '../readings/reading-store.ts';
import { meteredStore } from './metered-store.ts';
import { SHARED_DRIVER_OPTIONS } from '../database/database-monitor.ts';
import { connectUntilClosed } from '../database/connect-until-closed.ts';
import { eachMessage, threadPort } from './thread-port.ts';
import { fullGc } from './full-gc.ts';
import type {
  Counted,
  DeviceWorkerData,
  FromDeviceThread,
  SocketEvent,
  ToDeviceThread,
} from './device-thread-messages.ts';

// As the database monitor's client, but without the driver's command events: two event objects a command, each passed
// up through the driver's emitters, for every write of every device (the fleet bench: 0.86× → 0.90×, median of 10).
// The store says when the server answered instead (`answered`).
const DRIVER_OPTIONS = { ...SHARED_DRIVER_OPTIONS, monitorCommands: false, appName: 'service-health-kit-devices' };

const port = parentPort!;
const data = workerData as DeviceWorkerData;
const { post } = threadPort<FromDeviceThread>(port);

const log = createLogger({ name: 'backend', ...data.log });
const client = new MongoClient(data.uri, DRIVER_OPTIONS);
// Connected explicitly, not on its first write: a first write while the database is away would leave it closed
// for good (connect-until-closed.ts). The main thread's monitor says that the database is unreachable.
const connection = connectUntilClosed(client, { retryMs: 1000 });
let connected = false;
const store = createReadingStore({
  client,
  databaseName: data.databaseName,
  isConnected: () => connected,
  uri: data.uri,
  onAnswer: answered(),
});
const count = data.metrics ? (counted: Counted) => post({ kind: 'counted', counted }) : undefined;
const hub = createDeviceHub({
  log,
  store: count ? meteredStore(store, count) : store,
  // The main thread's gate has checked the token and the socket count; what is left is which device a token binds.
  tokens: data.tokens,
  presence: (states) => store.presence(states),
  ...(count
    ? {
        writer: {
          onRefused: (reason, n) => count({ kind: 'refused', reason, count: n }),
          onLost: (reason, n) => count({ kind: 'lost', reason, count: n }),
        },
      }
    : {}),
});

const sockets = new Map<number, { events: WSEvents; ws: WSContext; pinged: () => void }>();
port.on('message', eachMessage(onMessage));
post({ kind: 'ready' });

function onMessage(message: ToDeviceThread) {
  if (message.kind === 'connected') connected = message.connected;
  else if (message.kind === 'probe') post(probed());
  else if (message.kind === 'closeAll') void hub.closeAll().finally(() => post({ kind: 'closedAll' }));
  else if (message.kind === 'stop') void connection.close().finally(() => post({ kind: 'stopped' }));
  else if (message.kind === 'collect') collectGarbage();
  else onSocketEvent(message);
}

function onSocketEvent(event: SocketEvent) {
  if (event.kind === 'open') {
    const socket = remoteSocket(event.id);
    // Each frame handled or dropped is counted off the socket's read budget on the main thread (device-relay.ts).
    const done = (frames: number) => post({ kind: 'handled', id: event.id, frames });
    sockets.set(event.id, { ...socket, events: hub.events(event.remoteAddress, event.identity, done) });
    return sockets.get(event.id)!.events.onOpen?.(new Event('open'), socket.ws);
  }
  const socket = sockets.get(event.id);
  if (!socket) return;
  const { events, ws } = socket;
  if (event.kind === 'message') events.onMessage?.(new MessageEvent('message', { data: frameData(event) }), ws);
  else if (event.kind === 'ping') socket.pinged();
  else if (event.kind === 'error')
    events.onError?.(Object.assign(new Event('error'), { error: new Error(event.message) }), ws);
  else {
    sockets.delete(event.id);
    // Node 20 has no CloseEvent; the hub reads only these fields.
    events.onClose?.({ code: event.code, reason: event.reason } as CloseEvent, ws);
  }
}

/** A burst of socket events is over (burst-collect.ts): its garbage goes, and the heap gives back what it grew by. */
function collectGarbage() {
  fullGc().then(
    (done) => log.debug(done, 'device thread: garbage collected after a burst of device socket events'),
    () => {}, // no inspector in this build of Node: the memory comes back as V8 sees fit, as before
  );
}

/** The answer to a probe, with how long the oldest reading waiting for a write has waited (device-path.ts). */
function probed(): FromDeviceThread {
  const since = hub.waitingSince();
  return since === undefined ? { kind: 'probed' } : { kind: 'probed', waitedMs: performance.now() - since };
}

/** A frame as Hono gives it: text as a string, binary as an ArrayBuffer. */
const frameData = ({ bytes, binary }: { bytes: ArrayBuffer; binary: boolean }) =>
  binary ? bytes : Buffer.from(bytes).toString('utf8');

/** The socket numbered `id` as the hub sees it: what it does to it goes to the main thread, which holds it. */
function remoteSocket(id: number) {
  const pings: (() => void)[] = [];
  const raw = {
    bufferedAmount: 0,
    terminate: () => post({ kind: 'terminate', id }),
    close: (code: number, reason: string) => post({ kind: 'close', id, code, reason }),
    pause: () => post({ kind: 'pause', id }),
    resume: () => post({ kind: 'resume', id }),
    pong: () => post({ kind: 'pong', id }),
    on(event: string, listener: () => void) {
      if (event === 'ping') pings.push(listener);
      return raw;
    },
  };
  const ws = new WSContext({
    raw,
    readyState: 1,
    send: (text) => post({ kind: 'send', id, text: String(text) }),
    close: (code = 1000, reason = '') => raw.close(code, reason),
  });
  return { ws, pinged: () => pings.forEach((listener) => listener()) };
}

/**
 * The main thread's database monitor counts a reply as a sign of life (database-silence.ts): these are the replies it
 * no longer sees itself. One note in 100 ms says as much as a thousand.
 */
function answered() {
  let last = 0;
  return () => {
    const now = performance.now();
    if (now - last < 100) return;
    last = now;
    post({ kind: 'heard' });
  };
}
