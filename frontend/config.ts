// The frontend's settings, read from an environment map; a bad value is a one-line ConfigError.
import { readEnvironment, readInteger, readPort, readString, readUrl } from '../lib/env.ts';
import { readMetricsEnabled, readMetricsPort } from '../lib/metrics-setting.ts';
import type { OperatorAccess } from './operator-access.ts';
import { readToken, readTokenList, type ReadFile } from './secret-settings.ts';

type Env = Record<string, string | undefined>;

export interface FrontendConfig {
  port: number;
  /** HTTPS_PORT: HTTPS beside the plain PORT (frontend/listeners.ts); undefined, none (or PORT itself is HTTPS). */
  httpsPort?: number;
  /** HTTPS_PUBLISHED_PORT: the HTTPS port as the browser sees it (443 → a container's 3443), named in refusals. */
  httpsPublishedPort?: number;
  /** Undefined: every interface. */
  host?: string;
  backendUrl: string;
  /** Undefined when DEVICE_URL is set but empty: the device panel is disabled. */
  deviceUrl?: string;
  timeoutMs: number;
  /** `open` in local mode (NODE_ENV=local); else OPERATOR_TOKENS(_FILE), none when unset. */
  access: OperatorAccess;
  /** BACKEND_READ_TOKEN(_FILE): the credential for the backend's /api/devices and /api/readings. */
  backendReadToken?: string;
  /** METRICS_PORT: the management port serving /metrics; undefined, none (METRICS=off, or local mode unset). */
  metricsPort?: number;
}

/**
 * The frontend's management port by default: past the backend's 9464 and the device service's 9465, so all three
 * run side by side on one host.
 */
export const FRONTEND_METRICS_PORT_DEFAULT = 9466;

export function readConfig(env: Env, readFile?: ReadFile): FrontendConfig {
  const deviceDisabled = env.DEVICE_URL !== undefined && env.DEVICE_URL.trim() === '';
  const environment = readEnvironment(env);
  return {
    port: readPort(env, 'PORT', 3000),
    httpsPort: _optionalPort(env, 'HTTPS_PORT'),
    httpsPublishedPort: _optionalPort(env, 'HTTPS_PUBLISHED_PORT'),
    host: readString(env, 'HOST'),
    backendUrl: readUrl(env, 'BACKEND_URL', 'http://localhost:3001'),
    deviceUrl: deviceDisabled ? undefined : readUrl(env, 'DEVICE_URL', 'http://localhost:3003'),
    timeoutMs: readInteger(env, 'STATUS_TIMEOUT_MS', 1500, { min: 50, max: 60_000 }),
    access: environment === 'local' ? 'open' : { tokens: readTokenList(env, 'OPERATOR_TOKENS', readFile) ?? [] },
    backendReadToken: readToken(env, 'BACKEND_READ_TOKEN', readFile),
    metricsPort: readMetricsEnabled(env) ? readMetricsPort(env, environment, FRONTEND_METRICS_PORT_DEFAULT) : undefined,
  };
}

const _optionalPort = (env: Env, name: string) =>
  readString(env, name) === undefined ? undefined : readPort(env, name, 0);
