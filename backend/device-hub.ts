// The backend end of the device socket: lets only our devices in, binds each socket to one device, bounds what
// each socket may cost, stores readings once and keeps the latest.
import { upgradeWebSocket } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';
import type { WSContext, WSEvents } from 'hono/ws';
import type { WebSocket } from 'ws';
import type { Logger } from '../lib/logger.ts';
import {
  DEVICE_MESSAGE_RATE,
  parseDeviceMessage,
  type DeviceMessage,
  type ReadingMessage,
} from '../lib/device-protocol.ts';
import { createSummedWarning } from '../lib/summed-warning.ts';
import { createTokenBucket } from '../lib/token-bucket.ts';
import { createUpgradeGate } from './device-upgrade-gate.ts';

export interface DeviceView {
  deviceId: string;
  session: string;
  connected: boolean;
  lastReading: { seq: number; timestamp: string; value: string } | null;
  readingsStored: number;
}

interface DeviceRecord extends DeviceView {
  socket: WSContext | undefined;
}

export interface DeviceHub {
  /** The Hono handler for the WebSocket upgrade route. */
  handler: MiddlewareHandler;
  devices(): DeviceView[];
  /** Closes every device socket with 1001 (going away), as on shutdown. */
  closeAll(): void;
}

export interface DeviceHubOptions {
  log: Logger;
  /** DEVICE_TOKEN. Unset: every upgrade gets 401, unless `open`. */
  token?: string;
  /** Local mode without a token: devices connect without one. */
  open?: boolean;
  /** DEVICE_SOCKETS_MAX: concurrent sockets, including those that have not said hello yet. */
  socketsMax?: number;
  helloTimeoutMs?: number;
  /** Per-socket message rate (pings and malformed messages count too). */
  rate?: { perSecond: number; burst: number };
  /** A peer that leaves this much of our sending unread is not reading: it is dropped. */
  sendBufferMax?: number;
}

export const CLOSE_POLICY = 1008;
const CLOSE_GOING_AWAY = 1001;
// A hostile peer may never answer our close frame; ws would wait 30 s for it.
const CLOSE_GRACE_MS = 1000;

export function createDeviceHub(options: DeviceHubOptions): DeviceHub {
  const { log, token, open = false, socketsMax = 1000, helloTimeoutMs = 5000 } = options;
  const { rate = DEVICE_MESSAGE_RATE, sendBufferMax = 64 * 1024 } = options;
  const devices = new Map<string, DeviceRecord>();
  const sockets = new Set<WebSocket>();
  const gate = createUpgradeGate({ log, token, open, socketsMax });
  const malformed = createSummedWarning(log, (n) => `ignored ${n} malformed device message${n === 1 ? '' : 's'}`);
  const silent = createSummedWarning(
    log,
    (n) =>
      `closed ${n} device socket${n === 1 ? '' : 's'} ` +
      `that sent no hello within ${helloTimeoutMs / 1000} s (${CLOSE_POLICY})`,
  );

  function store(record: DeviceRecord, reading: ReadingMessage) {
    // A new session restarts its sequence; within a session a resent reading is acknowledged, not stored again.
    if (reading.session !== record.session) {
      record.session = reading.session;
      record.lastReading = null;
    } else if (record.lastReading && reading.seq <= record.lastReading.seq) {
      return;
    }
    record.lastReading = { seq: reading.seq, timestamp: reading.timestamp, value: reading.value };
    record.readingsStored += 1;
    log.debug(
      { deviceId: reading.deviceId, session: reading.session, seq: reading.seq, value: reading.value },
      'reading stored',
    );
  }

  function bind(message: DeviceMessage, ws: WSContext): DeviceRecord {
    const record = devices.get(message.deviceId) ?? {
      deviceId: message.deviceId,
      session: message.session,
      connected: false,
      lastReading: null,
      readingsStored: 0,
      socket: undefined,
    };
    devices.set(message.deviceId, record);
    if (message.session !== record.session) {
      record.session = message.session;
      record.lastReading = null;
    }
    record.connected = true;
    record.socket = ws;
    log.info({ deviceId: record.deviceId, session: message.session }, 'device connected');
    return record;
  }

  /** One socket's life: hello within the deadline, one device, a bounded rate and send buffer. */
  function socketEvents(remoteAddress: string): WSEvents {
    let record: DeviceRecord | undefined;
    let ending = false;
    let helloTimer: NodeJS.Timeout | undefined;
    const bucket = createTokenBucket(rate);
    const raw = (ws: WSContext) => ws.raw as WebSocket;

    function end(ws: WSContext, code: number, reason: string) {
      if (ending) return;
      ending = true;
      clearTimeout(helloTimer);
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
      log.warn(
        { remoteAddress, deviceId: record?.deviceId, buffered },
        `dropped a device socket that stopped reading (${buffered} bytes unsent)`,
      );
      raw(ws).terminate();
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
          clearTimeout(helloTimer);
          record = bind(message, ws);
        } else if (message.deviceId !== record.deviceId) {
          log.warn(
            { remoteAddress, deviceId: record.deviceId, claimed: message.deviceId },
            `closed a device socket that named a second device (${CLOSE_POLICY})`,
          );
          end(ws, CLOSE_POLICY, 'one device per socket');
          return;
        }
        if (record.socket !== ws) {
          // The same device again on this socket after a newer socket had taken over (or a fresh hello).
          record.connected = true;
          record.socket = ws;
        }
        if (message.type === 'reading') {
          store(record, message);
          if (record.lastReading) {
            ws.send(JSON.stringify({ type: 'ack', seq: record.lastReading.seq }));
            checkSendBuffer(ws);
          }
        } else if (message.session !== record.session) {
          record.session = message.session;
          record.lastReading = null;
        }
      },
      onClose(event, ws) {
        ending = true;
        clearTimeout(helloTimer);
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
    ),
  );

  return {
    handler: async function deviceSocket(c, next) {
      return gate.check(c) ?? upgrade(c, next);
    },
    devices: () =>
      [...devices.values()].map(({ socket: _socket, ...view }) => ({
        ...view,
        lastReading: view.lastReading && { ...view.lastReading },
      })),
    closeAll() {
      for (const ws of sockets) ws.close(CLOSE_GOING_AWAY, 'server shutting down');
      malformed.flush();
      silent.flush();
      gate.flush();
    },
  };
}
