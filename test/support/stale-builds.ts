// Builds under .tmp/ (the spawned services', the test files') of trees since edited: removed once unused for long.
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Removes what in `cache` has not been touched for `staleMs`. Runners and test processes build beside each other,
 * so an entry may be renamed or removed between the listing and its look: that one is passed over.
 */
export function removeStaleBuilds(cache: string, staleMs: number): void {
  mkdirSync(cache, { recursive: true });
  for (const name of readdirSync(cache)) {
    const path = join(cache, name);
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats && Date.now() - stats.mtimeMs > staleMs) rmSync(path, { recursive: true, force: true });
  }
}
