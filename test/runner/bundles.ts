// What the runner, a test process and a unit batch agree on about the run's bundles (compile-tests.ts builds them),
// apart from esbuild, which only the runner loads.
/** Loaded into every test process: its clean-ups on SIGTERM. */
export const ON_SIGTERM = 'test/support/exit-on-sigterm.ts';
/** Loaded into a file run alone: its counts when it exits (a batch reports each file itself). */
export const REPORT_AT_EXIT = 'test/runner/report-results.ts';
export const PRELOADS = [ON_SIGTERM, REPORT_AT_EXIT];
export const BATCH = 'test/runner/unit-batch.ts';
/** Names a unit batch's bundles folder (the batch imports each file's bundle from there). */
export const BUNDLES_ENV = 'TEST_BUNDLES_DIR';

export interface TestBundles {
  /** Where they are: a file's bundle is its path from the root, ending in .js (a unit batch's files). */
  dir: string;
  /** The bundle that runs `file` (a path from the root, as the runner names it), or undefined: it runs with tsx. */
  of(file: string): string | undefined;
}
