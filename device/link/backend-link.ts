// The device's socket to the backend: sends the spool's readings in frames, forgets acked ones, heals itself, and
// reports its state.
import { rootCertificates } from 'node:tls';
import WebSocket from 'ws';
import {
  CLOSE_GOING_AWAY,
  DEVICE_MAX_PAYLOAD,
  DEVICE_IN_FLIGHT_HEADER,
  DEVICE_RATE_HEADER,
  DEVICE_UNACKED_IN_FLIGHT_UNSAID,
  parseAck,
  type AckMessage,
} from '../../lib/device-protocol.ts';
import type { Logger } from '../../lib/logger.ts';
import { createBackoff, type Backoff } from '../../lib/backoff.ts';
import type { ReadingSpool } from '../spool/reading-spool.ts';
import { createFramePacer, termsForBackend, type BackendAnswer } from './frame-pacer.ts';
import { createFrameSender, type FrameSender } from './frame-sender.ts';
import { createLinkStatus, type SocketEnd } from './link-status.ts';

export interface BackendLinkOptions {
  /** ws(s)://host:port/api/device/socket */
  url: string;
  deviceId: string;
  /** DEVICE_TOKEN, sent as `Authorization: Bearer <token>` on the upgrade. */
  token?: string;
  /** BACKEND_CA_FILE's PEM: trusted for a wss:// backend besides Node's own CA store. */
  ca?: string;
  /** What is unacknowledged, in order; `spool.session` is the session `hello` names. */
  spool: ReadingSpool;
  /** `unauthorized`: the backend answered the upgrade with 401 (no token, or not its token). */
  /** The socket's state, with why it changed (the readiness check's reason). */
  onState: (state: 'connected' | 'disconnected' | 'unauthorized', reason?: string) => void;
  /** Told each ack after the spool forgot what it acknowledges, and how many readings that was (metrics). */
  onAck?: (ack: AckMessage, forgotten: number) => void;
  log: Logger;
  backoff?: Backoff;
  /** How long a socket stays open before the backoff starts again from its shortest wait (1000 ms). */
  keptOpenMs?: number;
  /** How often to ping; a stopped (SIGSTOP) or cut-off backend closes no socket, only silence shows it. */
  pingIntervalMs?: number;
  /**
   * Silence (no pong, no message) longer than this ends the socket: worst case detection is this + one ping interval.
   */
  silenceLimitMs?: number;
  /** A backend that accepts TCP but never answers the upgrade (stopped) must not stall reconnecting. */
  handshakeTimeoutMs?: number;
  /** Frames a second (and burst) this link sends at most, whatever the backend says (by default under what it says). */
  pace?: { perSecond: number; burst: number };
  /** The largest frame the backend accepts (its JSON in UTF-8 bytes); frames stay a margin under it. */
  maxPayload?: number;
  /** Readings sent and not yet acknowledged at most, whatever the backend says (by default what it says). */
  inFlightMax?: number;
}

export interface BackendLink {
  start(): void;
  /** The spool has a new reading: sends it if the socket, the pace and the in-flight bound allow (else later). */
  deliver(): void;
  /** Closes the socket with 1001 (going away) and stops reconnecting. */
  close(): Promise<void>;
}

/** Room left in each frame for what a byte count might miss; the frame's own bytes are counted exactly. */
const FRAME_MARGIN = 1024;
/**
 * How long a socket stays open before its backoff starts again from the shortest wait. A backend that accepts the
 * upgrade and closes at once (too many sockets for this token, 1013) would otherwise be reconnected to every 100 ms.
 */
const KEPT_OPEN_MS = 1000;

export function createBackendLink(options: BackendLinkOptions): BackendLink {
  const { url, deviceId, token, spool, onState, log } = options;
  const { backoff = createBackoff({ initialMs: 100, maxMs: 2000 }) } = options;
  const { pingIntervalMs = 1000, silenceLimitMs = 2500, keptOpenMs = KEPT_OPEN_MS } = options;
  const { maxPayload = DEVICE_MAX_PAYLOAD } = options;
  let socket: WebSocket | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let closing = false;
  const status = createLinkStatus({ url, tokenSent: token !== undefined });
  // The backend closes a socket that sends faster than its limit, so a backlog after an outage goes out paced;
  // frames stay a margin under the backend's limit, for what a byte count might miss.
  // Each socket's in-flight bound is its backend's (sender.open); none is sent before one opens.
  const limits = { deviceId, maxBytes: maxPayload - FRAME_MARGIN, inFlightMax: DEVICE_UNACKED_IN_FLIGHT_UNSAID };
  const pacer = createFramePacer({ spool, limits, ...(options.pace ? { pace: options.pace } : {}) });
  const sender = createFrameSender(pacer, () => socket);

  function connect() {
    retryTimer = undefined;
    if (closing) return;
    const ws = openSocket(options);
    socket = ws;
    const end: SocketEnd = { opened: false, code: 0 };
    let lastError: string | undefined;
    let heartbeat: NodeJS.Timeout | undefined;
    let kept: NodeJS.Timeout | undefined;
    // The backend's message rate and in-flight bound, as its answer to the upgrade says them (older ones say none).
    let answer: BackendAnswer = {};
    ws.on('upgrade', ({ headers }) => {
      // A header said twice reads as both values joined, which neither parser takes: as if unsaid.
      answer = {
        rate: headers[DEVICE_RATE_HEADER]?.toString(),
        inFlight: headers[DEVICE_IN_FLIGHT_HEADER]?.toString(),
      };
    });

    ws.on('open', function socketOpen() {
      end.opened = true;
      const attempts = backoff.attempts;
      kept = setTimeout(() => backoff.reset(), keptOpenMs);
      const { downMs } = status.opened();
      // Everything not yet acked goes again, in order; the backend ignores readings it already stored.
      const unacknowledged = spool.size;
      const said = termsForBackend(answer, pingIntervalMs);
      const terms = { pace: options.pace ?? said.pace, inFlightMax: options.inFlightMax ?? said.inFlightMax };
      sender.open(terms);
      onState('connected');
      log.info({ url, attempts, downMs, unacknowledged, ...terms }, 'backend socket connected');
      heartbeat = watchSilence(ws, { url, log, pingIntervalMs, silenceLimitMs });
    });
    ws.on('message', function socketMessage(data) {
      receiveAck(data.toString(), { spool, log, onAck: options.onAck, sender });
    });
    // The backend answered the upgrade with a plain HTTP response (401, 503 …) instead of a socket.
    ws.on('unexpected-response', (_request, response) => {
      end.refusedWith = response.statusCode;
      response.resume();
      ws.terminate();
    });
    ws.on('error', (error) => {
      lastError = error.message;
    });
    ws.on('close', function socketClosed(code, reason) {
      clearInterval(heartbeat);
      clearTimeout(kept);
      if (socket !== ws) return;
      sender.stop();
      socket = undefined;
      Object.assign(end, { code, why: reason.toString() || lastError });
      const delayMs = closing ? undefined : backoff.next();
      const retry = delayMs === undefined ? undefined : { delayMs, attempt: backoff.attempts };
      const { state, why, line } = status.closed(end, retry);
      onState(state, why);
      if (line) log[line.level](end.opened ? { ...line.fields, unacknowledged: spool.size } : line.fields, line.msg);
      if (delayMs !== undefined) retryTimer = setTimeout(connect, delayMs);
    });
  }

  return {
    start() {
      closing = false;
      status.start();
      connect();
    },
    deliver: () => sender.deliver(),
    async close() {
      closing = true;
      clearTimeout(retryTimer);
      sender.stop();
      if (socket) await closeGoingAway(socket);
    },
  };
}

/** A new socket to the backend, with the token and the trusted CAs. */
function openSocket({ url, token, ca, handshakeTimeoutMs = 2000 }: BackendLinkOptions): WebSocket {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  // `ca` replaces Node's store, so the private CA is added to it; the certificate is always verified.
  const trust = ca ? { ca: [...rootCertificates, ca] } : {};
  return new WebSocket(url, { handshakeTimeout: handshakeTimeoutMs, perMessageDeflate: false, headers, ...trust });
}

/** An ack forgets what it acknowledges and makes room to send more; anything else is ignored with a debug line. */
function receiveAck(
  text: string,
  { spool, log, onAck, sender }: Pick<BackendLinkOptions, 'spool' | 'log' | 'onAck'> & { sender: FrameSender },
) {
  const ack = parseAck(text);
  if (!ack) {
    log.debug({ data: text.slice(0, 200) }, 'ignored a message from the backend');
    return;
  }
  const forgotten = spool.ack(ack);
  onAck?.(ack, forgotten);
  logAck(log, ack, forgotten, spool.size);
  sender.acked(forgotten);
}

/** One line per ack (a batch of readings, not one per reading): when each reading was known stored. */
function logAck(log: Logger, { session, seq }: AckMessage, forgotten: number, unacknowledged: number) {
  if (log.isLevelEnabled('debug')) log.debug({ session, seq, forgotten, unacknowledged }, 'readings acknowledged');
}

/** Pings every `pingIntervalMs` and ends the socket once nothing (pong or message) was heard for `silenceLimitMs`. */
function watchSilence(
  ws: WebSocket,
  {
    url,
    log,
    pingIntervalMs,
    silenceLimitMs,
  }: { url: string; log: Logger; pingIntervalMs: number; silenceLimitMs: number },
): NodeJS.Timeout {
  let lastHeard = Date.now();
  const heard = () => (lastHeard = Date.now());
  ws.on('pong', heard);
  ws.on('message', heard);
  return setInterval(function checkPeer() {
    const silentMs = Date.now() - lastHeard;
    if (silentMs > silenceLimitMs) {
      log.warn({ url, silentMs }, `backend socket silent for ${silentMs} ms: dropping it`);
      ws.terminate();
      return;
    }
    ws.ping();
  }, pingIntervalMs);
}

/** Closes with 1001 (going away); a backend that never answers the close handshake must not hold up shutdown. */
async function closeGoingAway(ws: WebSocket): Promise<void> {
  if (ws.readyState === WebSocket.CONNECTING) {
    ws.terminate();
    return;
  }
  const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  ws.close(CLOSE_GOING_AWAY, 'device service shutting down');
  const timer = setTimeout(() => ws.terminate(), 1000);
  await closed;
  clearTimeout(timer);
}
