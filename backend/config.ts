// The backend's settings, read from an environment map; a bad value is a one-line ConfigError.
import { ConfigError } from '../lib/config-error.ts';
import { readEnvironment, readInteger, readPort, readSecret, readString, type ReadFile } from '../lib/env.ts';
import { readDeviceToken } from '../lib/device-token.ts';
import { redactUrl, scrubSecrets } from '../lib/redact-url.ts';
import { driverRejection } from './database/mongo-uri.ts';
import { readDeviceTokens } from './device-socket/device-tokens.ts';
import { readReadTokens } from './http/read-tokens.ts';

type Env = Record<string, string | undefined>;

export interface BackendConfig {
  port: number;
  /** Undefined: every interface. */
  host: string | undefined;
  environment: string;
  logLevel: string;
  mongodbUri: string;
  /** DEVICE_TOKEN, shared by every device DEVICE_TOKENS does not list; undefined when unset or blank. */
  deviceToken: string | undefined;
  /** DEVICE_TOKENS or DEVICE_TOKENS_FILE: deviceId → that device's own token; undefined when neither is set. */
  deviceTokens: Map<string, string> | undefined;
  /** DEVICE_SOCKETS_MAX: open device sockets above this are refused. */
  deviceSocketsMax: number;
  /** DEVICE_SOCKETS_PER_TOKEN: sockets one device's own token may hold; past it a socket is closed with 1013. */
  deviceSocketsPerToken: number;
  shutdownDelayMs: number;
  /** READ_TOKENS or READ_TOKENS_FILE: who may read device data outside local mode; undefined when neither is set. */
  readTokens: string[] | undefined;
}

export function readConfig(env: Env, readFile?: ReadFile): BackendConfig {
  // Read in the order the backend always has, so that with two bad values the same one is reported first.
  const port = readPort(env, 'PORT', 3001);
  const host = readString(env, 'HOST');
  const shutdownDelayMs = readInteger(env, 'SHUTDOWN_DELAY_MS', 0, { max: 60_000 });
  // MONGODB_URI_FILE: a URI with a password is a secret like any token.
  const mongodbUri = readSecret(env, 'MONGODB_URI', readFile)?.value ?? 'mongodb://localhost:27017/app';
  // Redacted: the rejected value may still carry a password (and the driver's reason may quote part of it).
  const quoted = `MONGODB_URI=${redactUrl(mongodbUri)} is not valid`;
  if (!/^mongodb(\+srv)?:\/\/[^/?#]+/i.test(mongodbUri)) {
    throw new ConfigError(`${quoted}: expected mongodb://host[:port]/database`);
  }
  const rejection = driverRejection(mongodbUri);
  if (rejection !== undefined) throw new ConfigError(`${quoted}: ${scrubSecrets(rejection, mongodbUri)}`);
  const deviceToken = readDeviceToken(env, readFile);
  return {
    port,
    host,
    environment: readEnvironment(env),
    logLevel: readString(env, 'LOG_LEVEL', 'info'),
    mongodbUri,
    deviceToken,
    deviceTokens: readDeviceTokens(env, deviceToken, readFile),
    deviceSocketsMax: readInteger(env, 'DEVICE_SOCKETS_MAX', 1000, { min: 1, max: 100_000 }),
    deviceSocketsPerToken: readInteger(env, 'DEVICE_SOCKETS_PER_TOKEN', 4, { min: 1, max: 100_000 }),
    shutdownDelayMs,
    readTokens: readReadTokens(env, readFile),
  };
}
