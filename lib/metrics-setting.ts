// METRICS: whether a service serves GET /metrics (`on`, the default) or not (`off`: 404, nothing measured).
import { ConfigError } from './config-error.ts';

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
