// Warns about refused device upgrades at most once per remote address per window, in a bounded amount of memory.
import type { Logger } from '../../lib/logger.ts';
import { createSummedWarning } from '../../lib/summed-warning.ts';

export interface RefusalLog {
  refused(address: string, reason: string): void;
  flush(): void;
}

export interface RefusalLogOptions {
  log: Logger;
  windowMs?: number;
  /** Addresses remembered at once; refusals from further addresses are summed into one line per window. */
  maxAddresses?: number;
  now?: () => number;
}

export function createRefusalLog({
  log,
  windowMs = 60_000,
  maxAddresses = 1024,
  now = Date.now,
}: RefusalLogOptions): RefusalLog {
  // Insertion order is warning order, so expired addresses are always at the front.
  const warnedAt = new Map<string, number>();
  const overflow = createSummedWarning(
    log,
    (n) =>
      `refused ${n} device socket upgrade${n === 1 ? '' : 's'} from addresses beyond the ${maxAddresses} tracked (401)`,
    { intervalMs: windowMs },
  );
  let total = 0;

  return {
    refused(address, reason) {
      total += 1;
      const t = now();
      for (const [seen, at] of warnedAt) {
        if (t - at < windowMs) break;
        warnedAt.delete(seen);
      }
      if (warnedAt.has(address)) return;
      if (warnedAt.size >= maxAddresses) {
        overflow.note({ remoteAddress: address, reason });
        return;
      }
      warnedAt.set(address, t);
      log.warn(
        { remoteAddress: address, reason, refusedTotal: total },
        `refused a device socket upgrade from ${address}: ${reason} (401)`,
      );
    },
    flush: () => overflow.flush(),
  };
}
