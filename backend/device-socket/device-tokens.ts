// Reads DEVICE_TOKENS (or the file DEVICE_TOKENS_FILE names, for a mounted Secret): one token per device, so that
// a socket may only speak for the device its token belongs to. Errors name the entry by its position only: an entry
// written the wrong way round or with the wrong separator may hold a token anywhere in it.
import { ConfigError } from '../../lib/config-error.ts';
import { readSecret, type ReadFile } from '../../lib/env.ts';
import { tokenProblem } from '../../lib/device-token.ts';
import { DEVICE_ID_RULE, isDeviceId } from '../../lib/device-protocol.ts';

type Env = Record<string, string | undefined>;

/**
 * deviceId → token, or undefined when neither variable is set. Entries are exactly `deviceId:token`, separated by
 * commas, spaces or newlines; in a file, a line starting with `#` is a comment. The deviceId follows DEVICE_ID_RULE
 * and neither part holds a colon. `sharedToken` (DEVICE_TOKEN) may not repeat one.
 */
export function readDeviceTokens(
  env: Env,
  sharedToken: string | undefined,
  readFile?: ReadFile,
): Map<string, string> | undefined {
  const secret = readSecret(env, 'DEVICE_TOKENS', readFile);
  return secret === undefined ? undefined : parse(secret.value, secret.setting, sharedToken);
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
    const parts = entry.split(':');
    const where = `${source} entry ${n}`;
    if (parts.length !== 2 || parts[0] === '' || parts[1] === '') {
      throw new ConfigError(`${where} is not deviceId:token (entries are separated by commas or newlines)`);
    }
    const [deviceId, token] = parts as [string, string];
    if (!isDeviceId(deviceId)) throw new ConfigError(`${where}: the deviceId is not ${DEVICE_ID_RULE}`);
    const problem = tokenProblem(token);
    if (problem) throw new ConfigError(`${where}: the token ${problem}`);
    const earlier = entryOf.get(deviceId);
    if (earlier !== undefined) {
      throw new ConfigError(`${where} names the device entry ${earlier} names: one token per device`);
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
