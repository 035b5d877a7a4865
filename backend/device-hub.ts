// The backend end of the device socket: lets only our devices in, binds each socket to the one device its token
// may speak for, bounds what each socket may cost, and hands its readings to its writer (reading-writer.ts), which
// stores them in MongoDB and only then acknowledges them.
import { upgradeWebSocket } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';
import type { WSContext, WSEvents } from 'hono/ws';
import type { WebSocket } from 'ws';
import type { Logger } from '../lib/logger.ts';
import {
  CLOSE_TRY_AGAIN_LATER,
  DEVICE_MESSAGE_RATE,
  parseDeviceMessage,
  readingsOf,
  type HelloMessage,
} from '../lib/device-protocol.ts';
import { createSummedWarning } from '../lib/summed-warning.ts';
import { createTokenBucket } from '../lib/token-bucket.ts';
import { createUpgradeGate } from './device-upgrade-gate.ts';
import type { DeviceIdentity } from './device-auth.ts';
import type { ReadingStore } from './reading-store.ts';
import { createReadingWriter, type ReadingWriter, type ReadingWriterOptions } from './reading-writer.ts';
import { createHeldBudget } from './held-budget.ts';

/** What the hub knows of a device since this process started; the readings themselves are in the database. */
export interface DeviceState {
  deviceId: string;
  /** The session its latest hello named. */
  session: string;
  connected: boolean;
}

interface DeviceRecord extends DeviceState {
  socket: WSContext | undefined;
}

export interface DeviceHub {
  /** The Hono handler for the WebSocket upgrade route. */
  handler: MiddlewareHandler;
  devices(): DeviceState[];
  /** Device sockets open now, including those not yet past hello. */
  socketsOpen(): number;
  /** Closes every device socket with 1001 (going away), as on shutdown. */
  closeAll(): void;
}

export interface DeviceHubOptions {
  log: Logger;
  /** Where readings go; the writer acknowledges them once this stored them. */
  store: Pick<ReadingStore, 'insert'>;
  /** DEVICE_TOKEN: any device DEVICE_TOKENS does not list. Unset (and no `tokens`): every upgrade gets 401. */
  token?: string;
  /** DEVICE_TOKENS: deviceId → its own token; a listed device may use no other. */
  tokens?: ReadonlyMap<string, string>;
  /** Local mode without any token: devices connect without one. */
  open?: boolean;
  /** DEVICE_SOCKETS_MAX: concurrent sockets, including those that have not said hello yet. */
  socketsMax?: number;
  helloTimeoutMs?: number;
  /** Per-socket message rate (pings and malformed messages count too). */
  rate?: { perSecond: number; burst: number };
  /** A peer that leaves this much of our sending unread is not reading: it is dropped. */
  sendBufferMax?: number;
  /** Bytes of readings all sockets may hold together while they wait to be stored. */
  heldBytesMax?: number;
  /** Per-socket writer settings (tests shorten the backoff). */
  writer?: Pick<ReadingWriterOptions, 'heldMax' | 'backoff' | 'onRefused'>;
}

export const CLOSE_POLICY = 1008;
const CLOSE_GOING_AWAY = 1001;
// A hostile peer may never answer our close frame; ws would wait 30 s for it.
const CLOSE_GRACE_MS = 1000;

export function createDeviceHub(options: DeviceHubOptions): DeviceHub {
  const { log, store, token, tokens, open = false, socketsMax = 1000, helloTimeoutMs = 5000 } = options;
  const { rate = DEVICE_MESSAGE_RATE, sendBufferMax = 64 * 1024, heldBytesMax = 256 * 1024 * 1024 } = options;
  const devices = new Map<string, DeviceRecord>();
  const sockets = new Set<WebSocket>();
  const gate = createUpgradeGate({ log, token, tokens, open, socketsMax });
  const identities = new WeakMap<Request, DeviceIdentity>();
  const budget = createHeldBudget(heldBytesMax);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const malformed = createSummedWarning(log, (n) => `ignored ${plural(n, 'malformed device message')}`);
  const silent = createSummedWarning(
    log,
    (n) =>
      `closed ${plural(n, 'device socket')} that sent no hello within ${helloTimeoutMs / 1000} s (${CLOSE_POLICY})`,
  );
  const impostor = createSummedWarning(
    log,
    (n) =>
      `closed ${plural(n, 'device socket')} whose hello named a device its token may not speak for (${CLOSE_POLICY})`,
  );
  const warnings = {
    refused: createSummedWarning(
      log,
      (n) => `refused ${plural(n, 'reading')} the backend cannot store as given (acknowledged as refused)`,
    ),
    failed: createSummedWarning(
      log,
      (n) => `${plural(n, 'write')} of readings failed; holding them unacknowledged and retrying`,
    ),
    dropped: createSummedWarning(
      log,
      (n) =>
        `dropped the readings held for ${plural(n, 'device socket')} over the bound and closed ` +
        `${n === 1 ? 'it' : 'them'} with ${CLOSE_TRY_AGAIN_LATER} (the devices resend them)`,
    ),
  };

  /** Why a hello may not bind this socket, or undefined when it may. */
  function refusal(hello: HelloMessage, identity: DeviceIdentity): string | undefined {
    if (identity.deviceId !== undefined && identity.deviceId !== hello.deviceId) return 'token of another device';
    if (identity.deviceId === undefined && tokens?.has(hello.deviceId)) return 'device has its own token';
    return undefined;
  }

  function bind(hello: HelloMessage, ws: WSContext): DeviceRecord {
    const record = devices.get(hello.deviceId) ?? {
      deviceId: hello.deviceId,
      session: hello.session,
      connected: false,
      socket: undefined,
    };
    devices.set(hello.deviceId, record);
    record.session = hello.session;
    record.connected = true;
    record.socket = ws;
    log.info({ deviceId: record.deviceId, session: hello.session }, 'device connected');
    return record;
  }

  /** One socket's life: hello within the deadline, one device, a bounded rate and send buffer. */
  function socketEvents(remoteAddress: string, identity: DeviceIdentity): WSEvents {
    let record: DeviceRecord | undefined;
    let writer: ReadingWriter | undefined;
    let ending = false;
    let helloTimer: NodeJS.Timeout | undefined;
    const bucket = createTokenBucket(rate);
    const raw = (ws: WSContext) => ws.raw as WebSocket;

    function end(ws: WSContext, code: number, reason: string) {
      if (ending) return;
      ending = true;
      clearTimeout(helloTimer);
      writer?.close();
      ws.close(code, reason);
      setTimeout(() => raw(ws).terminate(), CLOSE_GRACE_MS).unref();
    }
    /** False (and the socket closed) once the peer is over its rate. */
    function withinRate(ws: WSContext): boolean {
      if (bucket.take()) return true;
      log.warn(
        { remoteAddress, deviceId: record?.deviceId, perSecond: rate.perSecond, burst: rate.burst },
        `closed a device socket over its message rate (${rate.perSecond}/s, burst ${rate.burst}) with ${CLOSE_POLICY}`,
      );
      end(ws, CLOSE_POLICY, 'message rate exceeded');
      return false;
    }
    /** Our replies queue up in memory when the peer stops reading: past the bound, drop the peer. */
    function checkSendBuffer(ws: WSContext) {
      const buffered = raw(ws).bufferedAmount;
      if (buffered <= sendBufferMax || ending) return;
      ending = true;
      clearTimeout(helloTimer);
      writer?.close();
      log.warn(
        { remoteAddress, deviceId: record?.deviceId, buffered },
        `dropped a device socket that stopped reading (${buffered} bytes unsent)`,
      );
      raw(ws).terminate();
    }
    function hello(message: HelloMessage, ws: WSContext): DeviceRecord | undefined {
      const refused = refusal(message, identity);
      if (refused) {
        impostor.note({ remoteAddress, tokenDevice: identity.deviceId ?? '(shared token)', claimed: message.deviceId });
        end(ws, CLOSE_POLICY, refused);
        return undefined;
      }
      clearTimeout(helloTimer);
      const bound = bind(message, ws);
      writer = createReadingWriter({
        deviceId: bound.deviceId,
        store,
        log,
        budget,
        warnings,
        ...options.writer,
        send(ack) {
          if (ending) return;
          ws.send(JSON.stringify(ack));
          checkSendBuffer(ws);
        },
        overflow: () => end(ws, CLOSE_TRY_AGAIN_LATER, 'too many readings held; resend later'),
      });
      return bound;
    }

    return {
      onOpen(_event, ws) {
        sockets.add(raw(ws));
        helloTimer = setTimeout(() => {
          silent.note({ remoteAddress });
          end(ws, CLOSE_POLICY, 'no hello');
        }, helloTimeoutMs);
        // ws answers pings itself; they cost a pong each, so they count against the rate like messages.
        raw(ws).on('ping', () => {
          if (!ending && withinRate(ws)) checkSendBuffer(ws);
        });
      },
      onMessage(event, ws) {
        if (ending || !withinRate(ws)) return;
        const message = typeof event.data === 'string' ? parseDeviceMessage(event.data) : undefined;
        if (!message) {
          const sample = typeof event.data === 'string' ? event.data.slice(0, 100) : '<binary>';
          malformed.note({ remoteAddress, deviceId: record?.deviceId, sample });
          return;
        }
        if (!record) {
          if (message.type !== 'hello') {
            log.warn(
              { remoteAddress, type: message.type },
              `closed a device socket whose first message was not hello (${CLOSE_POLICY})`,
            );
            end(ws, CLOSE_POLICY, 'hello first');
            return;
          }
          record = hello(message, ws);
          return;
        }
        if (message.deviceId !== record.deviceId) {
          log.warn(
            { remoteAddress, deviceId: record.deviceId, claimed: message.deviceId },
            `closed a device socket that named a second device (${CLOSE_POLICY})`,
          );
          end(ws, CLOSE_POLICY, 'one device per socket');
          return;
        }
        if (record.socket !== ws) {
          // The same device again on this socket after a newer socket had taken over.
          record.connected = true;
          record.socket = ws;
        }
        if (message.type === 'hello') record.session = message.session;
        else writer!.accept(message.session, readingsOf(message));
      },
      onClose(event, ws) {
        ending = true;
        clearTimeout(helloTimer);
        writer?.close();
        sockets.delete(raw(ws));
        if (record && record.socket === ws) {
          record.connected = false;
          record.socket = undefined;
          log.info({ deviceId: record.deviceId, code: event.code }, 'device disconnected');
        }
      },
      onError(event) {
        const error = (event as ErrorEvent).error as Error | undefined;
        log.warn(
          { remoteAddress, deviceId: record?.deviceId, err: error?.message },
          `device socket error: ${error?.message}`,
        );
      },
    };
  }

  const upgrade = upgradeWebSocket((c) =>
    socketEvents(
      (c.env as { incoming?: { socket: { remoteAddress?: string } } })?.incoming?.socket.remoteAddress ?? 'unknown',
      identities.get(c.req.raw) ?? { deviceId: undefined },
    ),
  );

  return {
    handler: async function deviceSocket(c, next) {
      const checked = gate.check(c);
      if (checked instanceof Response) return checked;
      identities.set(c.req.raw, checked);
      return upgrade(c, next);
    },
    socketsOpen: () => sockets.size,
    devices: () => [...devices.values()].map(({ deviceId, session, connected }) => ({ deviceId, session, connected })),
    closeAll() {
      for (const ws of sockets) ws.close(CLOSE_GOING_AWAY, 'server shutting down');
      for (const warning of [malformed, silent, impostor, ...Object.values(warnings)]) warning.flush();
      gate.flush();
    },
  };
}
