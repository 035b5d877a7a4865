// The frontend's settings, read from an environment map; a bad value is a one-line ConfigError.
import { readInteger, readPort, readSecret, readString, readUrl } from '../lib/env.ts';
import { ConfigError } from '../lib/config-error.ts';
import { tokenProblem } from '../lib/device-token.ts';

type Env = Record<string, string | undefined>;

export interface FrontendConfig {
  port: number;
  /** Undefined: every interface. */
  host?: string;
  backendUrl: string;
  /** Undefined when DEVICE_URL is set but empty: the device panel is disabled. */
  deviceUrl?: string;
  timeoutMs: number;
  /** BACKEND_READ_TOKEN or BACKEND_READ_TOKEN_FILE: one of the backend's READ_TOKENS; undefined when unset. */
  backendReadToken?: string;
}

export function readConfig(env: Env): FrontendConfig {
  const deviceDisabled = env.DEVICE_URL !== undefined && env.DEVICE_URL.trim() === '';
  return {
    port: readPort(env, 'PORT', 3000),
    host: readString(env, 'HOST'),
    backendUrl: readUrl(env, 'BACKEND_URL', 'http://localhost:3001'),
    deviceUrl: deviceDisabled ? undefined : readUrl(env, 'DEVICE_URL', 'http://localhost:3003'),
    timeoutMs: readInteger(env, 'STATUS_TIMEOUT_MS', 1500, { min: 50, max: 60_000 }),
    ...readBackendReadToken(env),
  };
}

function readBackendReadToken(env: Env): { backendReadToken?: string } {
  const secret = readSecret(env, 'BACKEND_READ_TOKEN');
  if (secret === undefined) return {};
  const problem = tokenProblem(secret.value);
  if (problem) throw new ConfigError(`${secret.setting} ${problem}`);
  return { backendReadToken: secret.value };
}
