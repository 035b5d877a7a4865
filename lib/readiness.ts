// The readiness registry: dependencies push their state in; /api/ready only reads it (O(1), no I/O).

export type ReadinessListener = (change: {
  name: string;
  state: string;
  previous: string;
  /** Whether this check alone now counts as ready. */
  ready: boolean;
  /** Whether the whole service is now ready. */
  allReady: boolean;
  /** Why it changed, as the dependency told it (for the log). */
  reason?: string;
}) => void;

/** One check as the service itself judges it: the `details` of the readiness body (docs/contract.md). */
export interface CheckDetail {
  /** Whether the check's state is one its definition counts as ready. */
  ok: boolean;
  /** ISO 8601 time the check entered its state (for the initial state: when it was defined). */
  since: string;
  /** Why it is in this state, as the dependency told it; absent when it gave no reason. */
  reason?: string;
}

export interface ReadinessSnapshot {
  status: 'ready' | 'not_ready' | 'shutting_down';
  /** Shared frozen object, rebuilt only when a state changes. */
  checks: Readonly<Record<string, string>>;
  /** Check → the service's own judgement, since when and why; rebuilt with `checks`. */
  details: Readonly<Record<string, Readonly<CheckDetail>>>;
}

export interface Readiness {
  /**
   * Declares a check with its initial state and the states that count as ready; returns its setter. `decides: false`:
   * the check is shown and judged (and `/api/ready/<check>` answers by it) but never turns `/api/ready` to 503, for a
   * part a load balancer routes by its own path (the backend's `devices`: docs/contract.md).
   */
  define(
    name: string,
    options: { initial: string; ready: readonly string[]; decides?: boolean },
  ): (state: string, reason?: string) => void;
  set(name: string, state: string, reason?: string): void;
  get(name: string): string | undefined;
  /** Whether the check's current state counts as ready (false for an undefined check). */
  isReady(name: string): boolean;
  snapshot(): ReadinessSnapshot;
  /** From now on the service reports `shutting_down` whatever its checks say. */
  shutDown(): void;
  onChange(listener: ReadinessListener): () => void;
}

export interface ReadinessOptions {
  /** The clock `since` is read from (tests pass a fixed one). */
  now?: () => Date;
}

// A reason is shown in every readiness body until the next change: a driver's message may be long, a body must not.
const MAX_REASON = 200;

export function createReadiness({ now = () => new Date() }: ReadinessOptions = {}): Readiness {
  const readyStates = new Map<string, ReadonlySet<string>>();
  const advisory = new Set<string>();
  const states = new Map<string, string>();
  const details = new Map<string, Readonly<CheckDetail>>();
  const listeners = new Set<ReadinessListener>();
  let notReady = 0;
  let shuttingDown = false;
  let snapshot: ReadinessSnapshot = { status: 'ready', checks: Object.freeze({}), details: Object.freeze({}) };

  const rebuild = () => {
    snapshot = {
      status: shuttingDown ? 'shutting_down' : notReady === 0 ? 'ready' : 'not_ready',
      checks: Object.freeze(Object.fromEntries(states)),
      details: Object.freeze(Object.fromEntries(details)),
    };
  };
  const record = (name: string, ok: boolean, reason: string | undefined) => {
    const shown = reason?.replace(/\s+/g, ' ').trim();
    const bounded = shown && shown.length > MAX_REASON ? `${shown.slice(0, MAX_REASON - 1)}…` : shown;
    details.set(name, Object.freeze({ ok, since: now().toISOString(), ...(bounded ? { reason: bounded } : {}) }));
  };

  const set = (name: string, state: string, reason?: string) => {
    const ready = readyStates.get(name);
    if (!ready) throw new Error(`readiness check "${name}" is not defined`);
    const previous = states.get(name)!;
    if (previous === state) return;
    if (!advisory.has(name)) notReady += Number(!ready.has(state)) - Number(!ready.has(previous));
    states.set(name, state);
    record(name, ready.has(state), reason);
    rebuild();
    const change = {
      name,
      state,
      previous,
      ready: ready.has(state),
      allReady: notReady === 0,
      ...(reason ? { reason } : {}),
    };
    for (const listener of listeners) listener(change);
  };

  return {
    define(name, { initial, ready, decides = true }) {
      if (readyStates.has(name)) throw new Error(`readiness check "${name}" is defined twice`);
      readyStates.set(name, new Set(ready));
      if (!decides) advisory.add(name);
      states.set(name, initial);
      record(name, ready.includes(initial), undefined);
      if (!ready.includes(initial) && decides) notReady += 1;
      rebuild();
      return function setCheckState(state: string, reason?: string) {
        set(name, state, reason);
      };
    },
    set,
    get: (name) => states.get(name),
    isReady: (name) => readyStates.get(name)?.has(states.get(name)!) ?? false,
    snapshot: () => snapshot,
    shutDown() {
      shuttingDown = true;
      rebuild();
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
