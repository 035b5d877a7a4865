// The device service's settings, read from an environment map; a bad value is a one-line ConfigError.
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { ConfigError } from '../lib/config-error.ts';
import { readEnvironment, readInteger, readPort, readString, readUrl } from '../lib/env.ts';
import { DEVICE_ID_MAX_LENGTH, DEVICE_ID_RULE, DEVICE_SOCKET_PATH, isDeviceId } from '../lib/device-protocol.ts';
import { websocketUrl } from '../lib/endpoint-url.ts';
import { readDeviceToken } from '../lib/device-token.ts';

interface DeviceConfig {
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
  /** DEVICE_SPOOL_DIR, absolute: where unacknowledged readings are kept across restarts. */
  spoolDir: string;
  /** DEVICE_SPOOL_MAX_BYTES: beyond it the oldest unacknowledged readings are dropped. */
  spoolMaxBytes: number;
}

/** Below this a spool holds too few segments to drop the oldest without dropping nearly everything. */
const SPOOL_MIN_BYTES = 1024 * 1024;

/** `cwd` is what a relative DEVICE_SPOOL_DIR (and the default `spool`) is resolved against. */
export function readConfig(env: Record<string, string | undefined>, cwd = process.cwd()): DeviceConfig {
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
    socketUrl: websocketUrl(backendUrl, DEVICE_SOCKET_PATH),
    serialPath,
    baudRate: readInteger(env, 'SERIAL_BAUD_RATE', 9600, { min: 50, max: 4_000_000 }),
    deviceId: readDeviceId(env),
    deviceToken: readDeviceToken(env),
    shutdownDelayMs: readInteger(env, 'SHUTDOWN_DELAY_MS', 0, { max: 60_000 }),
    spoolDir: resolve(cwd, readString(env, 'DEVICE_SPOOL_DIR', 'spool')),
    spoolMaxBytes: readInteger(env, 'DEVICE_SPOOL_MAX_BYTES', 64 * 1024 * 1024, { min: SPOOL_MIN_BYTES }),
  };
}

/**
 * DEVICE_ID, or the host name, under the protocol's one id rule (DEVICE_ID_RULE): the backend refuses every hello
 * naming another, so a device started with one would never have a reading stored.
 */
function readDeviceId(env: Record<string, string | undefined>): string {
  const set = readString(env, 'DEVICE_ID');
  const deviceId = set ?? hostname();
  if (isDeviceId(deviceId as unknown)) return deviceId;
  const shown = deviceId.length > DEVICE_ID_MAX_LENGTH ? `${deviceId.length} characters` : JSON.stringify(deviceId);
  const what = set === undefined ? `DEVICE_ID is not set, and the host name ${shown}` : `DEVICE_ID=${shown}`;
  throw new ConfigError(`${what} is not valid: expected ${DEVICE_ID_RULE} (the backend refuses any other id)`);
}
