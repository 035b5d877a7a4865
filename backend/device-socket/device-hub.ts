// The backend end of the device socket, on the device thread (device-worker.ts): binds each socket to the one device
// its token may speak for (device-bindings.ts), bounds what each socket may cost, and hands its readings to its writer
// (reading-writer.ts), which stores them in MongoDB and only then acknowledges them. Which sockets get in (the upgrade
// gate) and what a peer may leave unread are the main thread's, which holds the sockets (device-thread.ts).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { MiddlewareHandler } from 'hono';
import type { WSContext, WSEvents } from 'hono/ws';
import type { DeviceIdentity } from './device-auth.ts';
import type { WebSocket } from 'ws';
import type { Logger } from '../../lib/logger.ts';
import { CLOSE_GOING_AWAY, DEVICE_MESSAGE_RATE, type Pace } from '../../lib/device-protocol.ts';
import type { UpgradeGateEnv } from './device-upgrade-gate.ts';
import { createDeviceSocket, type DeviceRegistry, type DeviceSocketOptions } from './device-socket.ts';
import { createDeviceBindings, presenceOf, type DeviceBindings, type DeviceRecord } from './device-bindings.ts';
import { createDeviceWarnings } from './device-warnings.ts';
import { createFrameSlices } from './frame-slices.ts';
import type { FrameQueueOptions } from './frame-queue.ts';
import type { ReadingStore } from '../readings/reading-store.ts';
import { createReadingWriter, type ReadingWriter, type ReadingWriterOptions } from '../writer/reading-writer.ts';
import { createHeldBudget } from '../writer/held-budget.ts';
import { createDeviceLanes } from '../writer/device-lanes.ts';
import { PRESENCE_BEAT_MS, type PresenceState } from '../readings/device-summary.ts';

export interface DeviceHub {
  /** The message rate each socket is held to: said to the device in the upgrade's DEVICE_RATE_HEADER. */
  readonly rate: Pace;
  /** Device sockets open now, including those not yet past hello. */
  socketsOpen(): number;
  /** The events of one socket from `remoteAddress` whose token speaks for `identity` (what the gate let through). */
  /** `done(frames)`: that many of the socket's frames were handled or dropped (the main thread's read budget). */
  events(remoteAddress: string, identity: DeviceIdentity, done?: (frames: number) => void): WSEvents;
  /**
   * Closes every device socket with 1001 (going away), as on shutdown; settles once the devices were written as
   * disconnected (or that write failed), so that other replicas do not wait out the heartbeat's staleness.
   */
  closeAll(): Promise<void>;
}

/** The hub as the app's device-socket route mounts it: behind the upgrade gate (device-thread.ts). */
export interface DeviceRoutes extends DeviceHub {
  /** The upgrade route's first handler: refuses the upgrade, or sets who the socket may speak for. */
  gate: MiddlewareHandler<UpgradeGateEnv>;
  /** The upgrade route's second handler: the WebSocket upgrade. */
  upgrade: MiddlewareHandler<UpgradeGateEnv>;
}

export interface DeviceHubOptions {
  log: Logger;
  /** Where readings go; the writer acknowledges them once this stored them. */
  store: Pick<ReadingStore, 'insert' | 'settled' | 'refusedThrough' | 'recordLosses'>;
  /** DEVICE_TOKENS: deviceId → its own token; a listed device may use no other. */
  tokens?: ReadonlyMap<string, string>;
  helloTimeoutMs?: number;
  /** Per-socket message rate (pings and malformed messages count too). */
  rate?: { perSecond: number; burst: number };
  /** Bytes of readings all sockets may hold together while they wait to be stored. */
  heldBytesMax?: number;
  /** How frames are handled: a slice's milliseconds, the frames a socket may have waiting before it is paused. */
  frames?: Pick<FrameQueueOptions, 'sliceMs' | 'pauseAt'>;
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

/** The hub as the device thread holds it. */
export interface LocalDeviceHub extends DeviceHub {
  /** When the oldest reading waiting for a write, of any socket, was received (performance.now()); see the writer. */
  waitingSince(): number | undefined;
}

export function createDeviceHub(options: DeviceHubOptions): LocalDeviceHub {
  const { log, store, tokens, helloTimeoutMs = 5000 } = options;
  const { rate = DEVICE_MESSAGE_RATE, heldBytesMax = 256 * 1024 * 1024 } = options;
  const { presence, replica = `${hostname()}:${process.pid}`, beatMs = PRESENCE_BEAT_MS } = options;
  const bindings = createDeviceBindings<WSContext>(tokens, randomUUID);
  const sockets = new Set<WebSocket>();
  const budget = createHeldBudget(heldBytesMax);
  const lanes = createDeviceLanes();
  const writers = new Set<ReadingWriter>();
  const warnings = createDeviceWarnings(log, helloTimeoutMs);
  const state = (record: DeviceRecord<WSContext>, connected: boolean) =>
    presenceOf(record, connected, replica, new Date());
  // Writes under way, which closeAll() waits for: a device that leaves as the backend stops is told before the
  // database client closes, not cut off by it (a false "write of device presence failed" at every such stop).
  const telling = new Set<Promise<void>>();
  /** Tells the `devices` collection; a failure is summed, and the next beat tells it again. */
  function tell(states: PresenceState[]) {
    if (!presence || states.length === 0) return Promise.resolve();
    const told = presence(states).catch((error: Error) =>
      warnings.presenceFailed.note({ devices: states.length, reason: error.message }),
    );
    telling.add(told);
    void told.finally(() => telling.delete(told));
    return told;
  }
  const beat = presence
    ? setInterval(() => void tell(bindings.held().map((record) => state(record, true))), beatMs).unref()
    : undefined;

  const registry = registryOf(bindings, log, (record, connected) => void tell([state(record, connected)]));
  // The writers' marks, kept across a device's reconnects to this process (reading-writer.ts says why).
  const lastAcked = new Map<string, { session: string; seq: number }>();
  const socketOptions: DeviceSocketOptions = {
    log,
    registry,
    warnings: warnings.socket,
    sockets,
    helloTimeoutMs,
    rate,
    frames: createFrameSlices(options.frames),
    writer(deviceId, send, overflow) {
      const shared = { store, lastAcked, log, budget, lanes, warnings: warnings.writer };
      const writer = createReadingWriter({ deviceId, ...shared, ...options.writer, send, overflow });
      writers.add(writer);
      return { ...writer, close: () => (writers.delete(writer), writer.close()) };
    },
  };

  return {
    rate,
    events: (remoteAddress, identity, done) => createDeviceSocket(socketOptions, remoteAddress, identity, done),
    socketsOpen: () => sockets.size,
    waitingSince() {
      let oldest: number | undefined;
      for (const writer of writers) {
        const at = writer.waitingSince();
        if (at !== undefined && (oldest === undefined || at < oldest)) oldest = at;
      }
      return oldest;
    },
    async closeAll() {
      clearInterval(beat);
      // Forgotten first: the sockets' close events then write nothing more.
      const held = bindings.clear();
      for (const ws of sockets) ws.close(CLOSE_GOING_AWAY, 'server shutting down');
      await tell(held.map((record) => state(record, false)));
      await Promise.all(telling);
      warnings.flush();
    },
  };
}

/**
 * The registry the sockets use: `bindings`' decisions, each change told (`told`: to the `devices` collection) and
 * each connect and disconnect logged.
 */
function registryOf(
  bindings: DeviceBindings<WSContext>,
  log: Logger,
  told: (record: DeviceRecord<WSContext>, connected: boolean) => void,
): DeviceRegistry {
  const registry: DeviceRegistry = {
    refusal: bindings.refusal,
    bind(hello, ws) {
      const record = bindings.bind(hello, ws);
      told(record, true);
      log.info({ deviceId: record.deviceId, session: hello.session }, 'device connected');
      return record;
    },
    touch({ deviceId }, ws, session, backlog) {
      const change = bindings.touch(deviceId, ws, session, backlog);
      // The same device again on this socket after a newer socket had taken over.
      const newer = () => bindings.get(deviceId)?.session ?? '';
      if (change === 'rebind') registry.bind({ type: 'hello', deviceId, session: session ?? newer(), backlog }, ws);
      else if (change === 'session') told(bindings.get(deviceId)!, true);
    },
    release({ deviceId }, ws, code) {
      const record = bindings.release(deviceId, ws);
      if (!record) return;
      told(record, false);
      log.info({ deviceId, code }, 'device disconnected');
    },
  };
  return registry;
}
