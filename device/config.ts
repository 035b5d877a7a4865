// The device service's settings, read from an environment map; a bad value is a one-line ConfigError.
import { hostname } from 'node:os';
import { ConfigError } from '../lib/config-error.ts';
import { readEnvironment, readInteger, readPort, readString, readUrl } from '../lib/env.ts';
import { DEVICE_SOCKET_PATH } from '../lib/device-protocol.ts';
import { readDeviceToken } from '../lib/device-token.ts';

export interface DeviceConfig {
  port: number;
  host: string | undefined;
  environment: string;
  logLevel: string;
  /** The backend's device socket, e.g. ws://localhost:3001/api/device/socket. */
  socketUrl: string;
  /** Unset only in local mode, where the emulator stands in for the port. */
  serialPath: string | undefined;
  baudRate: number;
  deviceId: string;
  /** DEVICE_TOKEN, sent as `Authorization: Bearer …` on the upgrade; unset only against a local-mode backend. */
  deviceToken: string | undefined;
  shutdownDelayMs: number;
}

export function readConfig(env: Record<string, string | undefined>): DeviceConfig {
  const environment = readEnvironment(env);
  const backendUrl = readUrl(env, 'BACKEND_URL', 'http://localhost:3001');
  const serialPath = readString(env, 'SERIAL_PATH');
  if (environment !== 'local' && serialPath === undefined) {
    throw new ConfigError(
      'SERIAL_PATH is not set: set it to the serial device (e.g. /dev/ttyUSB0), ' +
        'or set NODE_ENV=local to use the emulator',
    );
  }
  return {
    port: readPort(env, 'PORT', 3003),
    host: readString(env, 'HOST'),
    environment,
    logLevel: readString(env, 'LOG_LEVEL', 'info'),
    socketUrl: socketUrl(backendUrl),
    serialPath,
    baudRate: readInteger(env, 'SERIAL_BAUD_RATE', 9600, { min: 50, max: 4_000_000 }),
    deviceId: readString(env, 'DEVICE_ID', hostname()),
    deviceToken: readDeviceToken(env),
    shutdownDelayMs: readInteger(env, 'SHUTDOWN_DELAY_MS', 0, { max: 60_000 }),
  };
}

/** http(s)://host:port → ws(s)://host:port/api/device/socket. */
function socketUrl(backendUrl: string): string {
  const url = new URL(DEVICE_SOCKET_PATH, backendUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}
