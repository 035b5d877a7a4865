// Which socket speaks for which device in this process, decided without I/O: who may bind (a device's own token, or
// the shared one for a device without its own), the newest socket taking a device over, and what the `devices`
// collection is to be told. The hub (device-hub.ts) does the telling and the logging.
import type { HelloMessage } from '../../lib/device-protocol.ts';
import type { DeviceIdentity } from './device-auth.ts';
import type { PresenceState } from '../readings/device-summary.ts';

/** A device whose socket this process holds; the readings themselves, and every replica's view, are in the database. */
export interface DeviceRecord<S> {
  deviceId: string;
  /** The session its latest hello named. */
  session: string;
  socket: S;
  /** This socket's id in the `devices` collection, so that closing an older socket never disconnects a newer one. */
  connection: string;
  /** The unacknowledged readings its latest hello or frame reported; null until one does (an older device). */
  backlog: number | null;
}

export interface DeviceBindings<S> {
  /** Why `hello` may not bind a socket of `identity`, or undefined when it may. */
  refusal(hello: HelloMessage, identity: DeviceIdentity): string | undefined;
  /** Binds the device `hello` names to `socket`, taking it over from any older socket. */
  bind(hello: HelloMessage, socket: S): DeviceRecord<S>;
  /**
   * A message of `deviceId` on `socket`: `rebind` when no socket holds the device (the one that did closed: bind it
   * again), `session` when its session changed (tell the collection now), undefined when the next beat will do. Another
   * of this process's sockets for the device speaking again takes the record over as it is, under the same
   * connection: the collection's state is this process's either way, so sockets of one token taking turns cost no
   * write (nor a log line) per frame. The backlog is kept in memory only: the next beat (or the close) writes it,
   * which bounds how stale the list is.
   */
  touch(deviceId: string, socket: S, session?: string, backlog?: number): 'rebind' | 'session' | undefined;
  /** `socket` closed: its record, unless a newer socket holds the device (then undefined, and nothing changes). */
  release(deviceId: string, socket: S): DeviceRecord<S> | undefined;
  /** The device's record, if this process holds a socket for it. */
  get(deviceId: string): DeviceRecord<S> | undefined;
  /** Every record held. */
  held(): DeviceRecord<S>[];
  /** Forgets every record (on shutdown), returning them. */
  clear(): DeviceRecord<S>[];
}

export function createDeviceBindings<S>(
  tokens: ReadonlyMap<string, string> | undefined,
  newConnection: () => string,
): DeviceBindings<S> {
  const devices = new Map<string, DeviceRecord<S>>();
  return {
    refusal(hello, identity) {
      if (identity.deviceId !== undefined && identity.deviceId !== hello.deviceId) return 'token of another device';
      if (identity.deviceId === undefined && tokens?.has(hello.deviceId)) return 'device has its own token';
      return undefined;
    },
    bind({ deviceId, session, backlog = null }, socket) {
      const record = { deviceId, session, socket, connection: newConnection(), backlog };
      devices.set(deviceId, record);
      return record;
    },
    touch(deviceId, socket, session, backlog) {
      const record = devices.get(deviceId);
      if (!record) return 'rebind';
      record.socket = socket;
      if (backlog !== undefined) record.backlog = backlog;
      if (session === undefined || session === record.session) return undefined;
      record.session = session;
      return 'session';
    },
    release(deviceId, socket) {
      const record = devices.get(deviceId);
      if (record?.socket !== socket) return undefined;
      devices.delete(deviceId);
      return record;
    },
    get: (deviceId) => devices.get(deviceId),
    held: () => [...devices.values()],
    clear() {
      const held = [...devices.values()];
      devices.clear();
      return held;
    },
  };
}

/** What the `devices` collection is told of `record`, as `replica` holds it at `at`. */
export function presenceOf<S>(record: DeviceRecord<S>, connected: boolean, replica: string, at: Date): PresenceState {
  const { deviceId, session, connection, backlog } = record;
  return { deviceId, session, connected, replica, connection, backlog, at };
}
