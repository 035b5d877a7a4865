// The device's socket to the backend: sends the spool's readings in frames, forgets acked ones, heals itself, and
// reports its state.
import { rootCertificates } from 'node:tls';
import WebSocket from 'ws';
import {
  CLOSE_TRY_AGAIN_LATER,
  DEVICE_MAX_PAYLOAD,
  DEVICE_SEND_PACE,
  DEVICE_UNACKED_IN_FLIGHT,
  parseAck,
  type AckMessage,
} from '../lib/device-protocol.ts';
import type { Logger } from '../lib/logger.ts';
import { createBackoff, type Backoff } from '../lib/backoff.ts';
import type { ReadingSpool } from './reading-spool.ts';
import { createFramePacer } from './frame-pacer.ts';

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
  /** How often to ping; a stopped (SIGSTOP) or cut-off backend closes no socket, only silence shows it. */
  pingIntervalMs?: number;
  /**
   * Silence (no pong, no message) longer than this ends the socket: worst case detection is this + one ping interval.
   */
  silenceLimitMs?: number;
  /** A backend that accepts TCP but never answers the upgrade (stopped) must not stall reconnecting. */
  handshakeTimeoutMs?: number;
  /** Frames a second (and burst) this link sends at most: under the backend's rate limit. */
  pace?: { perSecond: number; burst: number };
  /** The largest frame the backend accepts (its JSON in UTF-8 bytes); frames stay a margin under it. */
  maxPayload?: number;
  /** Readings sent and not yet acknowledged at most. */
  inFlightMax?: number;
}

export interface BackendLink {
  start(): void;
  /** The spool has a new reading: sends it if the socket, the pace and the in-flight bound allow (else later). */
  deliver(): void;
  /** Closes the socket with 1001 (going away) and stops reconnecting. */
  close(): Promise<void>;
}

const GOING_AWAY = 1001;
const UNAUTHORIZED = 401;
/** Room left in each frame for what a byte count might miss; the frame's own bytes are counted exactly. */
const FRAME_MARGIN = 1024;

export function createBackendLink(options: BackendLinkOptions): BackendLink {
  const {
    url,
    deviceId,
    token,
    spool,
    onState,
    log,
    backoff = createBackoff({ initialMs: 100, maxMs: 2000 }),
  } = options;
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  // `ca` replaces Node's store, so the private CA is added to it; the certificate is always verified.
  const trust = options.ca ? { ca: [...rootCertificates, options.ca] } : {};
  const { pingIntervalMs = 1000, silenceLimitMs = 2500, handshakeTimeoutMs = 2000 } = options;
  const { maxPayload = DEVICE_MAX_PAYLOAD, inFlightMax = DEVICE_UNACKED_IN_FLIGHT } = options;
  let socket: WebSocket | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let closing = false;
  let downSince = Date.now();
  // Warn about a refused token once per run of refusals; retries after that are debug lines.
  let refusedInARow = 0;
  let pumpTimer: NodeJS.Timeout | undefined;
  let pumpSoon = false;
  // The backend closes a socket that sends faster than its limit, so a backlog after an outage goes out paced;
  // frames stay a margin under the backend's limit, for what a byte count might miss.
  const limits = { deviceId, maxBytes: maxPayload - FRAME_MARGIN, inFlightMax };
  const pacer = createFramePacer({ spool, limits, pace: options.pace ?? DEVICE_SEND_PACE });

  // Many readings to a frame, one frame per token: a backlog drains as fast as the backend acknowledges. With all
  // sent, or the in-flight bound reached, the next reading or ack pumps again.
  function pump() {
    clearTimeout(pumpTimer);
    pumpTimer = undefined;
    const ws = socket;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    for (let paced = pacer.next(); paced; paced = pacer.next()) {
      if ('waitMs' in paced) {
        pumpTimer = setTimeout(pump, paced.waitMs);
        return;
      }
      ws.send(paced.text);
    }
  }

  /** After an ack that sent no frame, a hello tells the backend the backlog (its last figure counted the acked). */
  function reportBacklog() {
    const ws = socket;
    if (!ws || ws.readyState !== WebSocket.OPEN || pumpTimer) return;
    const hello = pacer.backlogHello();
    if (hello) ws.send(hello);
  }

  function connect() {
    retryTimer = undefined;
    if (closing) return;
    const ws = new WebSocket(url, {
      handshakeTimeout: handshakeTimeoutMs,
      perMessageDeflate: false,
      headers,
      ...trust,
    });
    socket = ws;
    let opened = false;
    let refusedWith: number | undefined;
    let lastError: string | undefined;
    let heartbeat: NodeJS.Timeout | undefined;

    ws.on('open', function socketOpen() {
      opened = true;
      refusedInARow = 0;
      const attempts = backoff.attempts;
      backoff.reset();
      // Everything not yet acked goes again, in order; the backend ignores readings it already stored.
      const unacknowledged = spool.size;
      ws.send(pacer.open());
      pump();
      onState('connected');
      log.info({ url, attempts, downMs: Date.now() - downSince, unacknowledged }, 'backend socket connected');
      heartbeat = watchSilence(ws, { url, log, pingIntervalMs, silenceLimitMs });
    });
    ws.on('message', function socketMessage(data) {
      const ack = parseAck(data.toString());
      if (!ack) {
        log.debug({ data: data.toString().slice(0, 200) }, 'ignored a message from the backend');
        return;
      }
      const forgotten = spool.ack(ack);
      options.onAck?.(ack, forgotten);
      logAck(log, ack, forgotten, spool.size);
      if (forgotten > 0 && !pumpTimer) pump();
      reportBacklog();
    });
    // The backend answered the upgrade with a plain HTTP response (401, 503 …) instead of a socket.
    ws.on('unexpected-response', (_request, response) => {
      refusedWith = response.statusCode;
      response.resume();
      ws.terminate();
    });
    ws.on('error', (error) => {
      lastError = error.message;
    });
    ws.on('close', function socketClosed(code, reason) {
      clearInterval(heartbeat);
      if (socket !== ws) return;
      clearTimeout(pumpTimer);
      socket = undefined;
      const [state, why] = closedState(refusedWith, code, reason.toString() || lastError);
      onState(state, why);
      if (closing) return;
      if (opened) {
        downSince = Date.now();
        logLost(log, { url, code, reason: reason.toString() || lastError, unacknowledged: spool.size });
      }
      const delayMs = backoff.next();
      if (refusedWith === UNAUTHORIZED) refusedInARow += 1;
      if (!opened) logFailedAttempt(log, { url, token, refusedWith, lastError, code, delayMs, backoff, refusedInARow });
      retryTimer = setTimeout(connect, delayMs);
    });
  }

  return {
    start() {
      closing = false;
      downSince = Date.now();
      connect();
    },
    deliver() {
      // Lines that arrive together (one serial chunk) go out in one frame: pump once they are all in the spool.
      if (pumpTimer || pumpSoon) return;
      pumpSoon = true;
      setImmediate(() => {
        pumpSoon = false;
        pump();
      });
    },
    async close() {
      closing = true;
      clearTimeout(retryTimer);
      clearTimeout(pumpTimer);
      if (socket) await closeGoingAway(socket);
    },
  };
}

/** One line per ack (a batch of readings, not one per reading): when each reading was known stored. */
function logAck(log: Logger, { session, seq }: AckMessage, forgotten: number, unacknowledged: number) {
  if (log.isLevelEnabled('debug')) log.debug({ session, seq, forgotten, unacknowledged }, 'readings acknowledged');
}

/** An open socket closed: a warning, saying when the backend dropped what it held (1013). */
function logLost(log: Logger, lost: { url: string; code: number; reason?: string; unacknowledged: number }) {
  const held = lost.code === CLOSE_TRY_AGAIN_LATER ? ': the backend dropped what it held' : '';
  log.warn(lost, `backend socket closed${held}; reconnecting to resend from the oldest unacknowledged reading`);
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

interface FailedAttempt {
  url: string;
  token: string | undefined;
  /** The status the backend answered the upgrade with, if it did. */
  refusedWith: number | undefined;
  lastError: string | undefined;
  code: number;
  delayMs: number;
  backoff: Backoff;
  refusedInARow: number;
}

/** A socket that never opened: the first of a run of failures is a warning, the retries after it debug lines. */
function logFailedAttempt(log: Logger, attempt: FailedAttempt): void {
  const { url, token, refusedWith, lastError, code, delayMs, backoff, refusedInARow } = attempt;
  if (refusedWith === UNAUTHORIZED) {
    log[refusedInARow === 1 ? 'warn' : 'debug'](
      { url, tokenSent: token !== undefined, retryInMs: delayMs, attempt: backoff.attempts },
      'backend refused the device token (401)',
    );
    return;
  }
  const reason = refusedWith ? `answered the upgrade with ${refusedWith}` : (lastError ?? `closed with ${code}`);
  log[backoff.attempts === 1 ? 'warn' : 'debug'](
    { url, reason, retryInMs: delayMs, attempt: backoff.attempts },
    'backend socket unavailable; retrying',
  );
}

/** Closes with 1001 (going away); a backend that never answers the close handshake must not hold up shutdown. */
async function closeGoingAway(ws: WebSocket): Promise<void> {
  if (ws.readyState === WebSocket.CONNECTING) {
    ws.terminate();
    return;
  }
  const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  ws.close(GOING_AWAY, 'device service shutting down');
  const timer = setTimeout(() => ws.terminate(), 1000);
  await closed;
  clearTimeout(timer);
}

/** The state a closed socket leaves, and why, in a line: the backend's refusal, the close code, or the error. */
function closedState(
  refusedWith: number | undefined,
  code: number,
  why: string | undefined,
): ['unauthorized' | 'disconnected', string] {
  if (refusedWith === UNAUTHORIZED) return ['unauthorized', 'the backend refused the token (HTTP 401)'];
  if (refusedWith !== undefined) return ['disconnected', `the backend answered the upgrade with HTTP ${refusedWith}`];
  return ['disconnected', why ? `closed (${code}): ${why}` : `closed (${code})`];
}
