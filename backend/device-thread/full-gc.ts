// A full garbage collection of the calling thread that also gives back what the heap grew by, asked through the
// thread's own inspector session (no `--inspect` needed): `HeapProfiler.collectGarbage` is V8's low-memory
// collection, which shrinks the young generation and unmaps the freed pages. `gc()` (`--expose-gc`, settable at run
// time) frees the garbage but, on Node 20, leaves the spaces their grown size: the resident memory stayed as it was.
import { Session } from 'node:inspector';
import { getHeapStatistics } from 'node:v8';

/** What one collection did: the thread's heap (MiB) before and after, and how long it held the thread (ms). */
export interface Collected {
  heapBefore: number;
  heapAfter: number;
  ms: number;
}

/** Collects this thread's garbage, blocking it meanwhile; rejects where Node was built without an inspector. */
export async function fullGc(): Promise<Collected> {
  const heapBefore = heapMiB();
  const start = performance.now();
  const session = new Session();
  session.connect();
  try {
    await new Promise<void>((resolve, reject) =>
      session.post('HeapProfiler.collectGarbage', (error) => (error ? reject(error) : resolve())),
    );
  } finally {
    session.disconnect();
  }
  return { heapBefore, heapAfter: heapMiB(), ms: Math.round(performance.now() - start) };
}

const heapMiB = () => Math.round(getHeapStatistics().total_heap_size / 2 ** 20);
