// What the trailer says about a smoke result: the first failing probe, in the form a FAIL trailer uses.
import type { ProbeRecord, SmokeResult } from '../types.ts';

/** `[READY] backend: HTTP 503 ...`: the form a FAIL trailer uses. */
export const describeProbe = (probe: ProbeRecord) =>
  `[${probe.kind}] ${probe.target}: ${probe.reason ?? 'failed (no reason given)'}`;

export const firstFailure = (result: SmokeResult) => result.probes.find((probe) => probe.result === 'FAIL');
