// Whether the spool can be written: each write is tried through here, so that the first failure turns the state
// `unwritable` (with the error as the reason, and a summed warning) and the next success turns it back. Pure
// besides the callbacks it is given.

export type SpoolState = 'writable' | 'unwritable';

export interface WriteStateOptions {
  /** A write failed: the summed warning's fields. */
  failed(fields: Record<string, unknown>): void;
  /** The state changed, with why when it is not writable. */
  onState?: ((state: SpoolState, reason?: string) => void) | undefined;
}

export interface WriteState {
  /** Runs `write`; its result, or undefined when it threw (then `what` goes in the warning). */
  attempt<T>(write: () => T, what: Record<string, unknown>): T | undefined;
}

export function createWriteState({ failed, onState }: WriteStateOptions): WriteState {
  let state: SpoolState = 'writable';
  const set = (next: SpoolState, reason?: string) => {
    if (next === state) return;
    state = next;
    onState?.(next, reason);
  };
  return {
    attempt(write, what) {
      try {
        const result = write();
        set('writable');
        return result;
      } catch (error) {
        const { code, message } = error as NodeJS.ErrnoException;
        failed({ err: message, code, ...what });
        set('unwritable', `${code ?? 'error'}: ${message}`);
        return undefined;
      }
    },
  };
}
