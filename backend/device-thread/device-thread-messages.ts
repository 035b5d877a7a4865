// What the main thread and the device thread say to each other (device-thread.ts, device-worker.ts): the main
// thread owns the device sockets' bytes, the device thread everything the frames mean.
import type { LoggerOptions } from '../../lib/logger.ts';
import type { LossReason } from '../../lib/device-protocol.ts';
import type { DeviceIdentity } from '../device-socket/device-auth.ts';
import type { RefusalReason } from '../readings/reading-document.ts';

export interface DeviceWorkerData {
  uri: string;
  databaseName: string;
  log: Pick<LoggerOptions, 'environment' | 'level' | 'color' | 'singleLine'>;
  /** DEVICE_TOKENS: deviceId → its own token, for which socket may speak for which device. */
  tokens?: ReadonlyMap<string, string>;
  /** How far the device thread's nice value goes above the process's (Linux), so that the probes' thread goes first. */
  nice: number;
  /** Whether the device thread tells the main thread what its metrics count. */
  metrics: boolean;
}

/** One socket's events, numbered by the main thread. */
export type SocketEvent =
  | { kind: 'open'; id: number; remoteAddress: string; identity: DeviceIdentity }
  /** A frame's bytes as received (text frames are valid UTF-8: ws checked them). */
  | { kind: 'message'; id: number; bytes: ArrayBuffer; binary: boolean }
  | { kind: 'ping'; id: number }
  | { kind: 'close'; id: number; code: number; reason: string }
  | { kind: 'error'; id: number; message: string };

/**
 * To the device thread: a socket's event, the database monitor's verdict, close the sockets, stop, a probe it
 * answers at once with `probed` (thread-answers.ts: a thread that stops answering is hung), or collect its garbage
 * now (a burst of frames is over: burst-collect.ts).
 */
export type ToDeviceThread =
  | SocketEvent
  | { kind: 'connected'; connected: boolean }
  | { kind: 'closeAll' }
  | { kind: 'stop' }
  | { kind: 'probe' }
  | { kind: 'collect' };

/** What the device thread does to a socket. */
export type SocketCommand =
  | { kind: 'send'; id: number; text: string }
  | { kind: 'close'; id: number; code: number; reason: string }
  | { kind: 'terminate' | 'pause' | 'resume' | 'pong'; id: number }
  /** The device thread handled (or dropped) the socket's `frames` oldest frames: they leave its read budget. */
  | { kind: 'handled'; id: number; frames: number };

// Every kind of SocketCommand: the compiler asks for a new one here, so the main thread never mistakes it.
const COMMAND_KINDS: Record<SocketCommand['kind'], true> = {
  send: true,
  close: true,
  terminate: true,
  pause: true,
  resume: true,
  pong: true,
  handled: true,
};

/** True when the device thread says what to do to a socket (the relay's), not something of its own. */
export function isSocketCommand(message: FromDeviceThread): message is SocketCommand {
  return Object.hasOwn(COMMAND_KINDS, message.kind);
}

/** What the device thread's metrics counted, for the registry on the main thread. */
export type Counted =
  | { kind: 'write'; outcome: 'ok' | 'error'; seconds: number; inserted: number }
  | { kind: 'refused'; reason: RefusalReason; count: number }
  | { kind: 'lost'; reason: LossReason; count: number };

/** From the device thread. */
export type FromDeviceThread =
  | SocketCommand
  | { kind: 'ready' }
  | { kind: 'heard' }
  | { kind: 'counted'; counted: Counted }
  | { kind: 'closedAll' }
  | { kind: 'stopped' }
  /** The answer to a probe; `waitedMs`: how long the oldest reading waiting for a write has waited (none: unset). */
  | { kind: 'probed'; waitedMs?: number };
