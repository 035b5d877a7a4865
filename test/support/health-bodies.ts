// Test support: the one builder for the bodies a healthy service answers on /api/health and /api/ready.

/** A valid /api/health body; `extra` overrides or adds fields. */
export const healthyBody = (extra: Record<string, unknown> = {}) => ({
  status: 'ok',
  timestamp: new Date().toISOString(),
  uptime: 125.5,
  environment: 'production',
  ...extra,
});

/** A /api/ready body with the given status and checks (by default: ready, database connected). */
export const readyBody = (status = 'ready', checks: Record<string, string> = { database: 'connected' }) => ({
  status,
  timestamp: new Date().toISOString(),
  checks,
});
