// Test support: a device's reading counts (its liveness body's `readings`) as a fresh device reports them, for tests
// that stand in for the spool and change a count or two.
import type { ReadingStats } from '../../device/spool/reading-spool.ts';

/** A new object each call, all counts 0: a test assigns to it what it needs. */
export const emptyReadingStats = (): ReadingStats => ({
  unacknowledged: 0,
  spoolBytes: 0,
  dropped: 0,
  unwritten: 0,
  refused: 0,
  declaredLost: 0,
});
