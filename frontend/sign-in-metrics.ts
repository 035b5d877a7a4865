// The frontend's Prometheus metrics, served on its management port (METRICS_PORT): refused sign-ins by reason, so
// a guessing run shows on a graph and in an alert, and the process metrics. No label carries a token or an address.
import { Counter, Registry } from 'prom-client';
import { collectProcessMetrics } from '../lib/metrics.ts';

/** `wrong_token`: the token was read and matched none. `rate_limited`: refused before it was read (429). */
export const REFUSAL_REASONS = ['wrong_token', 'rate_limited'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export interface SignInMeter {
  refused(reason: RefusalReason): void;
}

export function createSignInMetrics({ processMetrics = true } = {}): { registry: Registry; meter: SignInMeter } {
  const registry = new Registry();
  if (processMetrics) collectProcessMetrics(registry);
  const refused = new Counter({
    name: 'frontend_sign_ins_refused_total',
    help: 'Sign-ins refused at POST /sign-in: a wrong operator token, or too many of them (429).',
    labelNames: ['reason'],
    registers: [registry],
  });
  // Every reason's series exists from the start at 0, so rate() and increase() see the first refusal.
  for (const reason of REFUSAL_REASONS) refused.inc({ reason }, 0);
  return { registry, meter: { refused: (reason) => refused.inc({ reason }) } };
}
