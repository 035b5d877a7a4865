// The backend end of the device socket: lets only our devices in, binds each socket to the one device its token
// may speak for, bounds what each socket may cost, and hands its readings to its writer (reading-writer.ts), which
// stores them in MongoDB and only then acknowledges them.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { upgradeWebSocket } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';
import type { WSContext } from 'hono/ws';
import type { WebSocket } from 'ws';
import type { Logger } from '../lib/logger.ts';
import { CLOSE_TRY_AGAIN_LATER, DEVICE_MESSAGE_RATE } from '../lib/device-protocol.ts';
import { createSummedWarning } from '../lib/summed-warning.ts';
import { createUpgradeGate, type UpgradeGateEnv } from './device-upgrade-gate.ts';
import { CLOSE_POLICY, createDeviceSocket, type DeviceRegistry, type DeviceSocketOptions } from './device-socket.ts';
import type { ReadingStore } from './reading-store.ts';
import { createReadingWriter, type ReadingWriterOptions } from './reading-writer.ts';
import { createHeldBudget } from './held-budget.ts';
import { PRESENCE_BEAT_MS, type PresenceState } from './device-summary.ts';

/** A device whose socket this process holds; the readings themselves, and every replica's view, are in the database. */
interface DeviceRecord {
  deviceId: string;
  /** The session its latest hello named. */
  session: string;
  socket: WSContext;
  /** This socket's id in the `devices` collection, so that closing an older socket never disconnects a newer one. */
  connection: string;
  /** The unacknowledged readings its latest hello or frame reported; null until one does (an older device). */
  backlog: number | null;
}

export interface DeviceHub {
  /** Device sockets open now, including those not yet past hello. */
  socketsOpen(): number;
  /** The upgrade route's first handler: refuses the upgrade, or sets who the socket may speak for. */
  gate: MiddlewareHandler<UpgradeGateEnv>;
  /** The upgrade route's second handler: the WebSocket upgrade. */
  upgrade: MiddlewareHandler<UpgradeGateEnv>;
  /**
   * Closes every device socket with 1001 (going away), as on shutdown; settles once the devices were written as
   * disconnected (or that write failed), so that other replicas do not wait out the heartbeat's staleness.
   */
  closeAll(): Promise<void>;
}

export interface DeviceHubOptions {
  log: Logger;
  /** Where readings go; the writer acknowledges them once this stored them. */
  store: Pick<ReadingStore, 'insert' | 'settled' | 'refusedThrough' | 'recordLosses'>;
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
  writer?: Pick<ReadingWriterOptions, 'heldMax' | 'backoff' | 'onRefused' | 'onLost'>;
  /**
   * Where the state of this process's sockets goes, so that every replica lists the same (the `devices` collection):
   * written at each connect and close and every `beatMs` for every socket held. Without it, only readings are kept.
   */
  presence?: (states: PresenceState[]) => Promise<void>;
  /** This process, as the `devices` collection names the replica holding a socket. */
  replica?: string;
  beatMs?: number;
}

const CLOSE_GOING_AWAY = 1001;

export function createDeviceHub(options: DeviceHubOptions): DeviceHub {
  const { log, store, token, tokens, open = false, socketsMax = 1000, helloTimeoutMs = 5000 } = options;
  const { rate = DEVICE_MESSAGE_RATE, sendBufferMax = 64 * 1024, heldBytesMax = 256 * 1024 * 1024 } = options;
  const { presence, replica = `${hostname()}:${process.pid}`, beatMs = PRESENCE_BEAT_MS } = options;
  const devices = new Map<string, DeviceRecord>();
  const sockets = new Set<WebSocket>();
  const gate = createUpgradeGate({ log, token, tokens, open, socketsMax });
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

  const presenceFailed = createSummedWarning(
    log,
    (n) => `${plural(n, 'write')} of device presence failed (the device list may show stale connection states)`,
  );
  const state = (record: DeviceRecord, connected: boolean): PresenceState => ({
    deviceId: record.deviceId,
    session: record.session,
    connected,
    replica,
    connection: record.connection,
    backlog: record.backlog,
    at: new Date(),
  });
  function tell(states: PresenceState[]) {
    if (!presence || states.length === 0) return;
    presence(states).catch((error: Error) => presenceFailed.note({ devices: states.length, reason: error.message }));
  }
  const beat = presence
    ? setInterval(() => tell([...devices.values()].map((record) => state(record, true))), beatMs).unref()
    : undefined;

  const registry: DeviceRegistry = {
    refusal(hello, identity) {
      if (identity.deviceId !== undefined && identity.deviceId !== hello.deviceId) return 'token of another device';
      if (identity.deviceId === undefined && tokens?.has(hello.deviceId)) return 'device has its own token';
      return undefined;
    },
    bind(hello, ws) {
      const { deviceId, session, backlog = null } = hello;
      const record: DeviceRecord = { deviceId, session, socket: ws, connection: randomUUID(), backlog };
      devices.set(hello.deviceId, record);
      tell([state(record, true)]);
      log.info({ deviceId: record.deviceId, session: hello.session }, 'device connected');
      return record;
    },
    touch(device, ws, session, backlog) {
      const record = devices.get(device.deviceId);
      if (record?.socket !== ws) {
        // The same device again on this socket after a newer socket had taken over.
        const { deviceId } = device;
        registry.bind({ type: 'hello', deviceId, session: session ?? record?.session ?? '', backlog }, ws);
        return;
      }
      // Kept in memory only: the next heartbeat (or the close) writes it, which bounds how stale the list is.
      if (backlog !== undefined) record.backlog = backlog;
      if (session !== undefined && session !== record.session) {
        record.session = session;
        tell([state(record, true)]);
      }
    },
    release(device, ws, code) {
      const record = devices.get(device.deviceId);
      if (record?.socket !== ws) return;
      devices.delete(device.deviceId);
      tell([state(record, false)]);
      log.info({ deviceId: record.deviceId, code }, 'device disconnected');
    },
  };
  // The writers' marks, kept across a device's reconnects to this process (reading-writer.ts says why).
  const lastAcked = new Map<string, { session: string; seq: number }>();
  const socketOptions: DeviceSocketOptions = {
    log,
    registry,
    warnings: { malformed, silent, impostor },
    sockets,
    helloTimeoutMs,
    rate,
    sendBufferMax,
    writer: (deviceId, send, overflow) =>
      createReadingWriter({ deviceId, store, lastAcked, log, budget, warnings, ...options.writer, send, overflow }),
  };

  return {
    gate: gate.middleware,
    upgrade: upgradeWebSocket((c) =>
      createDeviceSocket(socketOptions, c.get('remoteAddress'), c.get('deviceIdentity')),
    ),
    socketsOpen: () => sockets.size,
    async closeAll() {
      clearInterval(beat);
      const held = [...devices.values()];
      // Forgotten first: the sockets' close events then write nothing more.
      devices.clear();
      for (const ws of sockets) ws.close(CLOSE_GOING_AWAY, 'server shutting down');
      if (presence && held.length > 0) {
        await presence(held.map((record) => state(record, false))).catch((error: Error) =>
          presenceFailed.note({ devices: held.length, reason: error.message }),
        );
      }
      for (const warning of [malformed, silent, impostor, presenceFailed, ...Object.values(warnings)]) warning.flush();
      gate.flush();
    },
  };
}
