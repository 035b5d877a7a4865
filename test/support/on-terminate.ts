// Clean-ups that run even when a test file is stopped at its deadline: test/run.ts sends SIGTERM, which skips uvu's
// `after` hooks, so what lives outside the file's processes (containers, stacks, their volumes) registers here too.
const cleanups = new Set<() => Promise<unknown>>();

/** Registers `cleanup` for a SIGTERM; the function returned unregisters it (once cleaned up the ordinary way). */
export function onTerminate(cleanup: () => Promise<unknown>): () => void {
  cleanups.add(cleanup);
  return () => void cleanups.delete(cleanup);
}

/** Runs every registered clean-up at once; a failure is ignored, since a file being stopped has nobody to tell. */
export async function runTerminateCleanups(): Promise<void> {
  const pending = [...cleanups];
  cleanups.clear();
  await Promise.allSettled(pending.map((cleanup) => cleanup()));
}
