// Reads DEVICE_TOKEN (or DEVICE_TOKEN_FILE), the secret the device service shows the backend on the socket upgrade;
// never echoes it.
import { ConfigError } from './config-error.ts';
import { readSecret, type ReadFile } from './env.ts';

export const DEVICE_TOKEN_MIN_LENGTH = 16;

// RFC 6750's b64token: what may follow `Bearer ` in an Authorization header.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
export const TOKEN_HOW = 'e.g. `openssl rand -hex 32`';

/**
 * The token, or undefined when DEVICE_TOKEN is unset or blank and DEVICE_TOKEN_FILE unset. Leading and trailing
 * whitespace (a newline from `$(cat file)` or a Secret written with `echo`) is trimmed; whitespace inside, other
 * characters a bearer token cannot carry, or fewer than 16 characters are a ConfigError that names the problem
 * and the setting, not the value.
 */
export function readDeviceToken(env: Record<string, string | undefined>, readFile?: ReadFile): string | undefined {
  const secret = readSecret(env, 'DEVICE_TOKEN', readFile); // trimmed; blank is unset
  if (secret === undefined) return undefined;
  const problem = tokenProblem(secret.value);
  if (problem) throw new ConfigError(`${secret.setting} ${problem}`);
  return secret.value;
}

/** What is wrong with a token, worded to follow its name ("is too short (…)"), or undefined when nothing is. */
export function tokenProblem(token: string): string | undefined {
  if (/\s/.test(token)) {
    return `is not valid: it contains whitespace; use letters, digits and - . _ ~ + / only (${TOKEN_HOW})`;
  }
  if (!B64TOKEN.test(token)) {
    return `is not valid: use letters, digits and - . _ ~ + / only, optionally ending in = (${TOKEN_HOW})`;
  }
  if (token.length < DEVICE_TOKEN_MIN_LENGTH) {
    return `is too short (${token.length} characters): use at least ${DEVICE_TOKEN_MIN_LENGTH} (${TOKEN_HOW})`;
  }
  return undefined;
}
