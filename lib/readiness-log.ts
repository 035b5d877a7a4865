// Logs readiness changes: recovery at info, loss at warn (the probes themselves are logged at debug).
import type { Logger } from './logger.ts';
import type { Readiness } from './readiness.ts';

export function logReadinessChanges(readiness: Readiness, log: Logger): void {
  readiness.onChange(function logChange({ name, state, previous, ready, allReady, reason }) {
    const fields = { check: name, state, previous, ready: allReady, ...(reason ? { reason } : {}) };
    if (ready) log.info(fields, `readiness: ${name} is ${state}`);
    else log.warn(fields, `readiness: ${name} is ${state}`);
  });
}
