// Reads DEVICE_TOKENS (or the file DEVICE_TOKENS_FILE names, for a mounted Secret): one token per device, so that
// a socket may only speak for the device its token belongs to. Errors name the entry and the device, never a token.
import { readFileSync } from 'node:fs';
import { ConfigError } from '../lib/config-error.ts';
import { readString } from '../lib/env.ts';
import { tokenProblem } from '../lib/device-token.ts';
import { DEVICE_ID_MAX_LENGTH } from '../lib/device-protocol.ts';

type Env = Record<string, string | undefined>;

/**
 * deviceId → token, or undefined when neither variable is set. Entries are `deviceId:token`, separated by commas,
 * spaces or newlines; in a file, a line starting with `#` is a comment. The token is what follows the last `:`
 * (a bearer token has none), so a deviceId may contain colons. `sharedToken` (DEVICE_TOKEN) may not repeat one.
 */
export function readDeviceTokens(
  env: Env,
  sharedToken: string | undefined,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): Map<string, string> | undefined {
  const inline = readString(env, 'DEVICE_TOKENS');
  const path = readString(env, 'DEVICE_TOKENS_FILE');
  if (inline !== undefined && path !== undefined) {
    throw new ConfigError('DEVICE_TOKENS and DEVICE_TOKENS_FILE are both set: set one of them');
  }
  if (path !== undefined) return parse(readTokenFile(path, readFile), `DEVICE_TOKENS_FILE (${path})`, sharedToken);
  return inline === undefined ? undefined : parse(inline, 'DEVICE_TOKENS', sharedToken);
}

function readTokenFile(path: string, readFile: (path: string) => string): string {
  try {
    return readFile(path);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new ConfigError(`DEVICE_TOKENS_FILE=${path} cannot be read: ${code ?? message}`, { cause: error });
  }
}

function parse(text: string, source: string, sharedToken: string | undefined): Map<string, string> {
  const entries = text
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .flatMap((line) => line.split(/[\s,]+/))
    .filter(Boolean);
  if (entries.length === 0) throw new ConfigError(`${source} lists no device: expected deviceId:token entries`);
  const tokens = new Map<string, string>();
  const entryOf = new Map<string, number>();
  const owner = new Map<string, number>();
  entries.forEach((entry, i) => {
    const n = i + 1;
    const colon = entry.lastIndexOf(':');
    // Quoting an entry without a colon could quote a bare token: say where it is instead.
    if (colon <= 0 || colon === entry.length - 1) {
      throw new ConfigError(`${source} entry ${n} is not deviceId:token (entries are separated by commas or newlines)`);
    }
    const deviceId = entry.slice(0, colon);
    const token = entry.slice(colon + 1);
    const where = `${source} entry ${n} (device ${JSON.stringify(deviceId.slice(0, 64))})`;
    if (deviceId.length > DEVICE_ID_MAX_LENGTH) {
      throw new ConfigError(`${where}: the deviceId is longer than ${DEVICE_ID_MAX_LENGTH} characters`);
    }
    const problem = tokenProblem(token);
    if (problem) throw new ConfigError(`${where}: the token ${problem}`);
    const earlier = entryOf.get(deviceId);
    if (earlier !== undefined) {
      throw new ConfigError(`${where} names a device entry ${earlier} names already: one token per device`);
    }
    const sharer = owner.get(token);
    if (sharer !== undefined) {
      throw new ConfigError(`${where} has the same token as entry ${sharer}: give each device its own token`);
    }
    if (token === sharedToken) {
      throw new ConfigError(`${where} has the same token as DEVICE_TOKEN: give each device its own token`);
    }
    tokens.set(deviceId, token);
    entryOf.set(deviceId, n);
    owner.set(token, n);
  });
  return tokens;
}
