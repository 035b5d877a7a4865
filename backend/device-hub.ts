// The backend end of the device socket: accepts device connections, stores readings once, keeps the latest.
import { upgradeWebSocket } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';
import type { WSContext } from 'hono/ws';
import type { Logger } from '../lib/logger.ts';
import { parseDeviceMessage, type ReadingMessage } from '../lib/device-protocol.ts';

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

export function createDeviceHub({ log }: { log: Logger }): DeviceHub {
  const devices = new Map<string, DeviceRecord>();

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
    log.debug({ deviceId: reading.deviceId, session: reading.session, seq: reading.seq, value: reading.value }, 'reading stored');
  }

  const handler = upgradeWebSocket(() => {
    let record: DeviceRecord | undefined;
    return {
      onMessage(event, ws) {
        const message = typeof event.data === 'string' ? parseDeviceMessage(event.data) : undefined;
        if (!message) {
          log.warn({ data: String(event.data).slice(0, 200) }, 'ignored a malformed device message');
          return;
        }
        if (!record || record.deviceId !== message.deviceId) {
          record = devices.get(message.deviceId) ?? {
            deviceId: message.deviceId,
            session: message.session,
            connected: false,
            lastReading: null,
            readingsStored: 0,
            socket: undefined,
          };
          devices.set(message.deviceId, record);
        }
        if (!record.connected || record.socket !== ws) {
          record.connected = true;
          record.socket = ws;
          log.info({ deviceId: record.deviceId, session: message.session }, 'device connected');
        }
        if (message.type === 'reading') {
          store(record, message);
          if (record.lastReading) ws.send(JSON.stringify({ type: 'ack', seq: record.lastReading.seq }));
        } else if (message.session !== record.session) {
          record.session = message.session;
          record.lastReading = null;
        }
      },
      onClose(event, ws) {
        if (record && record.socket === ws) {
          record.connected = false;
          record.socket = undefined;
          log.info({ deviceId: record.deviceId, code: event.code }, 'device disconnected');
        }
      },
      onError(event) {
        log.warn({ err: (event as ErrorEvent).error }, 'device socket error');
      },
    };
  });

  return {
    handler,
    devices: () =>
      [...devices.values()].map(({ socket: _socket, ...view }) => ({ ...view, lastReading: view.lastReading && { ...view.lastReading } })),
    closeAll() {
      for (const record of devices.values()) record.socket?.close(1001, 'server shutting down');
    },
  };
}
