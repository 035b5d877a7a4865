// Reads settings from the environment; a bad value is a ConfigError naming the variable and the value.
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
