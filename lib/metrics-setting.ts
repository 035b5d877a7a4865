// METRICS: whether a service serves GET /metrics (`on`, the default) or not (`off`: 404, nothing measured);
// METRICS_PORT: the management port it is served on (docs/access.md#metrics-off-the-public-port).
import { ConfigError } from './config-error.ts';
import { readPort } from './env.ts';

type Env = Record<string, string | undefined>;

const VALUES = new Map([
  ['on', true],
  ['off', false],
  ['true', true],
  ['false', false],
  ['1', true],
  ['0', false],
]);

export function readMetricsEnabled(env: Env): boolean {
  const raw = env.METRICS?.trim();
  if (raw === undefined || raw === '') return true;
  const enabled = VALUES.get(raw.toLowerCase());
  if (enabled === undefined) throw new ConfigError(`METRICS=${raw} is not valid: expected on or off`);
  return enabled;
}

/** Where Prometheus scrapes the backend outside local mode; a port of its own, never published. */
export const METRICS_PORT_DEFAULT = 9464;

/**
 * The management port /metrics is served on, or undefined for none. Outside local mode always (METRICS_PORT,
 * default 9464, or the service's own `defaultPort`), and the public port answers 404 there. In local mode /metrics
 * stays on the main port and a management port opens only when METRICS_PORT is set: local services share one host,
 * where one default clashes.
 */
export function readMetricsPort(env: Env, environment: string, defaultPort = METRICS_PORT_DEFAULT): number | undefined {
  if (environment === 'local' && !env.METRICS_PORT?.trim()) return undefined;
  return readPort(env, 'METRICS_PORT', defaultPort);
}
