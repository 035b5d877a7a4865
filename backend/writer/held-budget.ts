// The bytes of readings the backend holds in memory for all device sockets together (received, not yet stored):
// each socket is bounded by a count, and this keeps a thousand of them from adding up to gigabytes.

export interface HeldBudget {
  /** Reserves `bytes`; false (nothing reserved) when that would pass the bound. */
  take(bytes: number): boolean;
  give(bytes: number): void;
  readonly held: number;
  readonly max: number;
}

export function createHeldBudget(max: number): HeldBudget {
  let held = 0;
  return {
    take(bytes) {
      if (held + bytes > max) return false;
      held += bytes;
      return true;
    },
    give(bytes) {
      held = Math.max(0, held - bytes);
    },
    get held() {
      return held;
    },
    max,
  };
}
