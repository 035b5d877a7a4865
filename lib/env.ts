// Reads settings from the environment; a bad value is a ConfigError naming the variable and the value (a secret's
// error names only the variable).
import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error.ts';
import { redactUrl } from './redact-url.ts';

type Env = Record<string, string | undefined>;

const present = (env: Env, name: string) => {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

export function readString(env: Env, name: string, fallback: string): string;
export function readString(env: Env, name: string, fallback?: string): string | undefined;
export function readString(env: Env, name: string, fallback?: string) {
  return present(env, name) ?? fallback;
}

export function readInteger(
  env: Env,
  name: string,
  fallback: number,
  { min = 0, max = Number.MAX_SAFE_INTEGER } = {},
): number {
  const raw = present(env, name);
  if (raw === undefined) return fallback;
  const value = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name}=${raw} is not valid: expected a whole number from ${min} to ${max}`);
  }
  return value;
}

/**
 * A port as written by a person: decimal digits only, 0 to 65535. Not `Number()`, which takes `0x10`, `1e3`
 * and the empty string. Undefined when the text is not one; `readPort` and the stand-in's `--port` use this.
 */
export function parsePort(raw: string): number | undefined {
  if (!/^\d+$/.test(raw)) return undefined;
  const port = Number(raw);
  return port <= 65535 ? port : undefined;
}

export function readPort(env: Env, name: string, fallback: number): number {
  const raw = present(env, name);
  if (raw === undefined) return fallback;
  const port = parsePort(raw);
  if (port === undefined) throw new ConfigError(`${name}=${raw} is not valid: expected a port number from 0 to 65535`);
  return port;
}

export function readUrl(env: Env, name: string, fallback: string, protocols = ['http:', 'https:']): string {
  const raw = present(env, name) ?? fallback;
  // Quoted redacted: a rejected value (ftp://user:password@…) may still carry a credential.
  const shown = redactUrl(raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name}=${shown} is not valid: expected a URL such as ${fallback}`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name}=${shown} is not valid: expected a ${protocols.join(' or ')} URL`);
  }
  return raw;
}

/** `NODE_ENV`, or `production` when it is unset (docs/contract.md#settings-and-start-up-errors). */
export function readEnvironment(env: Env): string {
  return present(env, 'NODE_ENV') ?? 'production';
}

/** A secret's text and the setting it came from (`X` or `X_FILE`), for errors that must name only the setting. */
export interface Secret {
  value: string;
  setting: string;
}

export type ReadFile = (path: string) => string;
const readUtf8: ReadFile = (path) => readFileSync(path, 'utf8');

/**
 * A secret setting `name`, given inline or, as `${name}_FILE`, as the path of a file holding it (a Docker secret
 * under /run/secrets, a Kubernetes Secret): the file keeps it out of `docker inspect`. Whitespace around it (the
 * file's trailing newline) is trimmed; undefined when neither is set. Both set, a file that cannot be read or
 * holds only whitespace: a ConfigError naming the setting, never its value (a token pasted into the `_FILE`
 * setting by mistake must not reach a log).
 */
export function readSecret(env: Env, name: string, readFile: ReadFile = readUtf8): Secret | undefined {
  const fileSetting = `${name}_FILE`;
  const inline = present(env, name);
  const path = present(env, fileSetting);
  if (inline !== undefined && path !== undefined) {
    throw new ConfigError(`${name} and ${fileSetting} are both set: set one of them`);
  }
  if (path === undefined) return inline === undefined ? undefined : { value: inline, setting: name };
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new ConfigError(`${fileSetting} names a file that cannot be read: ${code ?? message}`, { cause: error });
  }
  const value = text.trim();
  if (value === '') throw new ConfigError(`${fileSetting} names an empty file: write the secret into it`);
  return { value, setting: fileSetting };
}
