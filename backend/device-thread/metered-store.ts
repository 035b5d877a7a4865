// A reading store whose inserts are timed and counted: what they stored, or that they failed. The device thread's
// writers insert; what it counts goes to the metrics registry on the main thread (backend-metrics.ts `counted`).
import type { ReadingStore } from '../readings/reading-store.ts';
import type { Counted } from './device-thread-messages.ts';

/** `store`, each insert told to `tell` with its outcome, its seconds and the readings it newly stored. */
export function meteredStore<S extends Pick<ReadingStore, 'insert'>>(store: S, tell: (counted: Counted) => void): S {
  const insert: ReadingStore['insert'] = async function meteredInsert(docs) {
    const start = performance.now();
    const seconds = () => (performance.now() - start) / 1000;
    try {
      const result = await store.insert(docs);
      tell({ kind: 'write', outcome: 'ok', seconds: seconds(), inserted: result.inserted });
      return result;
    } catch (error) {
      tell({ kind: 'write', outcome: 'error', seconds: seconds(), inserted: 0 });
      throw error;
    }
  };
  return { ...store, insert };
}
