// Smoke runs as the CLI sums them up (SmokeSummary), for tests of what is written from them and read back.
import type { SmokeSummary } from '../../smoke/types.ts';

/** Three probes, the backend's readiness failing with two reasons after three attempts; a page issue on LOAD. */
export const failingRun: SmokeSummary = {
  ok: false,
  passed: 2,
  failed: 1,
  total: 3,
  ms: 1234,
  startedAt: '2025-01-02T03:04:05.000Z',
  probes: [
    { kind: 'HEALTH', target: 'backend', url: 'http://b/api/health', ok: true, ms: 5, reasons: [], attempts: 1 },
    {
      kind: 'READY',
      target: 'backend',
      url: 'http://b/api/ready',
      ok: false,
      ms: 6,
      reasons: ['HTTP 503 Service Unavailable', 'checks: database=disconnected'],
      attempts: 3,
    },
    {
      kind: 'LOAD',
      target: 'frontend',
      url: 'http://f/?a=1&b=<2>',
      ok: true,
      ms: 700,
      reasons: [],
      attempts: 1,
      screenshot: 'a/frontend-ok.png',
      issues: ['console error: "x" | <y> & \u0007'],
    },
  ],
};

/** The same three probes, all passing: the backend's readiness only on its third attempt (a flaky pass). */
export const passingRun: SmokeSummary = {
  ...failingRun,
  ok: true,
  passed: 3,
  failed: 0,
  probes: failingRun.probes.map((probe) => ({
    ...probe,
    ok: true,
    reasons: [],
    ...(probe.attempts > 1 ? { earlierFailure: probe.reasons } : {}),
  })),
};
