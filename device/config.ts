// The device service's settings, read from an environment map; a bad value is a one-line ConfigError.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { ConfigError } from '../lib/config-error.ts';
import { readEnvironment, readInteger, readPort, readString, readUrl } from '../lib/env.ts';
import { DEVICE_ID_MAX_LENGTH, DEVICE_ID_RULE, DEVICE_SOCKET_PATH, isDeviceId } from '../lib/device-protocol.ts';
import { websocketUrl } from '../lib/endpoint-url.ts';
import { readDeviceToken } from '../lib/device-token.ts';
import { plaintextRefusal } from './link/plaintext-guard.ts';

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
  /** BACKEND_CA_FILE's PEM text: a private CA trusted for the backend's certificate besides Node's own store. */
  backendCa: string | undefined;
  shutdownDelayMs: number;
  /** DEVICE_SPOOL_DIR, absolute: where unacknowledged readings are kept across restarts. */
  spoolDir: string;
  /** DEVICE_SPOOL_MAX_BYTES: beyond it the oldest unacknowledged readings are dropped. */
  spoolMaxBytes: number;
}

/**
 * The device's management port by default: one past the backend's 9464, so the two run side by side on one host
 * (a second service on the same default would exit with "port in use").
 */
export const DEVICE_METRICS_PORT_DEFAULT = 9465;

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
  const deviceToken = readDeviceToken(env);
  const refusal = plaintextRefusal(websocketUrl(backendUrl, DEVICE_SOCKET_PATH), {
    hasToken: deviceToken !== undefined,
    allowed: readFlag(env, 'DEVICE_ALLOW_PLAINTEXT'),
  });
  if (refusal) throw new ConfigError(refusal);
  return {
    port: readPort(env, 'PORT', 3003),
    host: readString(env, 'HOST'),
    environment,
    logLevel: readString(env, 'LOG_LEVEL', 'info'),
    socketUrl: websocketUrl(backendUrl, DEVICE_SOCKET_PATH),
    serialPath,
    baudRate: readInteger(env, 'SERIAL_BAUD_RATE', 9600, { min: 50, max: 4_000_000 }),
    deviceId: readDeviceId(env),
    deviceToken,
    backendCa: readCaFile(env),
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

/** `1` or `true` is on; unset, blank, `0` or `false` off; anything else a one-line error. */
function readFlag(env: Record<string, string | undefined>, name: string): boolean {
  const raw = readString(env, name)?.toLowerCase();
  if (raw === undefined || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(`${name}=${raw} is not valid: expected 1 or 0`);
}

/** BACKEND_CA_FILE's certificates, checked to be PEM; an error names the setting. */
function readCaFile(env: Record<string, string | undefined>): string | undefined {
  const path = readString(env, 'BACKEND_CA_FILE');
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new ConfigError(`BACKEND_CA_FILE names a file that cannot be read: ${code ?? message}`, { cause: error });
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError('BACKEND_CA_FILE holds no PEM certificate: expected -----BEGIN CERTIFICATE-----');
  }
  return text;
}
