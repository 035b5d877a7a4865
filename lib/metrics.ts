// A service's Prometheus metrics: its own registry, the default process metrics and the readiness gauges.
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Hono } from 'hono';
import type { Readiness } from './readiness.ts';
import { createMetricsRoutes } from './metrics-routes.ts';
import { measureRequests } from './request-metrics.ts';

const LINT_FAILING_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

export interface Metrics {
  /** This app's registry, never prom-client's global one: two apps (or tests) in one process do not collide. */
  registry: Registry;
}

export interface MetricsOptions {
  readiness: Readiness;
  /** Off: no process metrics are sampled (tests that build many apps). */
  processMetrics?: boolean;
}

/** prom-client's default process metrics in `registry`, less those `promtool check metrics` rejects. */
export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters; the per-type gauges beside them stay.
  for (const name of LINT_FAILING_DEFAULTS) registry.removeSingleMetric(name);
}

/**
 * The readiness gauges read the registry's snapshot when scraped, so a scrape costs no I/O and never waits on a
 * dependency. `service_check_state` keeps a series for every state a check has been in since start (1 for the
 * current one, 0 for the others): a state's series does not vanish when the check leaves it.
 */
export function createMetrics({ readiness, processMetrics = true }: MetricsOptions): Metrics {
  const registry = new Registry();
  if (processMetrics) collectProcessMetrics(registry);
  const seen = new Map<string, Set<string>>();
  const remember = (check: string, state: string) => {
    const states = seen.get(check) ?? new Set<string>();
    states.add(state);
    seen.set(check, states);
  };
  for (const [check, state] of Object.entries(readiness.snapshot().checks)) remember(check, state);
  readiness.onChange(({ name, state }) => remember(name, state));

  new Gauge({
    name: 'service_ready',
    help: 'Whether the service answers /api/ready with 200 (1) or not (0: not ready or shutting down).',
    registers: [registry],
    collect() {
      this.set(readiness.snapshot().status === 'ready' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'service_check_ready',
    help: "Whether this readiness check's state counts as ready (1) or not (0).",
    labelNames: ['check'],
    registers: [registry],
    collect() {
      const { checks } = readiness.snapshot();
      for (const check of Object.keys(checks)) this.set({ check }, readiness.isReady(check) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'service_check_state',
    help: 'The state of each readiness check: 1 for the current state, 0 for states it was in before.',
    labelNames: ['check', 'state'],
    registers: [registry],
    collect() {
      const { checks } = readiness.snapshot();
      for (const [check, states] of seen) {
        for (const state of states) this.set({ check, state }, checks[check] === state ? 1 : 0);
      }
    },
  });
  return { registry };
}

/**
 * Times an app's requests and, when `onThisPort` (local mode), adds GET /metrics to it; outside local mode
 * /metrics is served by lib/management-app.ts on its own port. Without a registry (METRICS=off) the app is left
 * as it is.
 */
export function serveMetrics<T extends Hono<any, any, any>>(
  app: T,
  registry: Registry | undefined,
  { onThisPort = true } = {},
): T {
  if (!registry) return app;
  if (onThisPort) app.route('/', createMetricsRoutes({ registry }));
  return measureRequests(app, registry);
}
