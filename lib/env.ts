// Reads settings from the environment; a bad value is a ConfigError naming the variable and the value.
import { ConfigError } from './config-error.ts';

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

export function readPort(env: Env, name: string, fallback: number): number {
  const raw = present(env, name);
  if (raw !== undefined && !/^\d+$/.test(raw)) {
    throw new ConfigError(`${name}=${raw} is not valid: expected a port number from 0 to 65535`);
  }
  try {
    return readInteger(env, name, fallback, { min: 0, max: 65535 });
  } catch {
    throw new ConfigError(`${name}=${raw} is not valid: expected a port number from 0 to 65535`);
  }
}

export function readUrl(env: Env, name: string, fallback: string, protocols = ['http:', 'https:']): string {
  const raw = present(env, name) ?? fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name}=${raw} is not valid: expected a URL such as ${fallback}`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name}=${raw} is not valid: expected a ${protocols.join(' or ')} URL`);
  }
  return raw;
}

/** `NODE_ENV`, or `production` when it is unset (docs/contract.md#settings-and-start-up-errors). */
export function readEnvironment(env: Env): string {
  return present(env, 'NODE_ENV') ?? 'production';
}
