// The device thread's entry (device-thread.ts). Node 24 strips device-worker.ts's types itself, as it does the
// backend's; under Node 20 with `--import tsx`, a worker does not inherit tsx's hooks, so it registers them: only
// when what it loads is TypeScript (a build that compiled the tree to JavaScript loads none). Once its modules are
// loaded, the thread lowers its priority. Not before: lowered while loading (the MongoDB driver above all) on a
// machine whose cores other processes keep busy, it took longer than its 10 s to start, and the backend stopped.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { workerData } from 'node:worker_threads';

const worker = new URL('./device-worker.ts', import.meta.url);
if (worker.pathname.endsWith('.ts') && !process.features.typescript) (await import('tsx/esm/api')).register();
await import(worker.href);
lowerThisThread(workerData.nice);

/**
 * On Linux a thread has a nice value of its own: this one goes `by` above the process's, so that it yields the CPU
 * to the probes' thread (never above 19, the lowest priority).
 */
function lowerThisThread(by) {
  try {
    const thread = Number(readlinkSync('/proc/thread-self').split('/').pop());
    setPriority(thread, Math.min(19, getPriority(thread) + by));
  } catch {
    // Not Linux, or not allowed: the thread runs at the process's priority, as everything did before it.
  }
}
