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

export interface ReadinessSnapshot {
  status: 'ready' | 'not_ready' | 'shutting_down';
  /** Shared frozen object, rebuilt only when a state changes. */
  checks: Readonly<Record<string, string>>;
}

export interface Readiness {
  /** Declares a check with its initial state and the states that count as ready; returns its setter. */
  define(
    name: string,
    options: { initial: string; ready: readonly string[] },
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

export function createReadiness(): Readiness {
  const readyStates = new Map<string, ReadonlySet<string>>();
  const states = new Map<string, string>();
  const listeners = new Set<ReadinessListener>();
  let notReady = 0;
  let shuttingDown = false;
  let snapshot: ReadinessSnapshot = { status: 'ready', checks: Object.freeze({}) };

  const rebuild = () => {
    snapshot = {
      status: shuttingDown ? 'shutting_down' : notReady === 0 ? 'ready' : 'not_ready',
      checks: Object.freeze(Object.fromEntries(states)),
    };
  };

  const set = (name: string, state: string, reason?: string) => {
    const ready = readyStates.get(name);
    if (!ready) throw new Error(`readiness check "${name}" is not defined`);
    const previous = states.get(name)!;
    if (previous === state) return;
    notReady += Number(!ready.has(state)) - Number(!ready.has(previous));
    states.set(name, state);
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
    define(name, { initial, ready }) {
      if (readyStates.has(name)) throw new Error(`readiness check "${name}" is defined twice`);
      readyStates.set(name, new Set(ready));
      states.set(name, initial);
      if (!ready.includes(initial)) notReady += 1;
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
