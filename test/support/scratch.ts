// A scratch folder for one test file, and files written into it under fresh names.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function createScratch(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let count = 0;
  return {
    dir,
    /** Writes `text` to a file of its own in the folder and returns its path. */
    file(text: string): string {
      const path = join(dir, `file-${++count}.json`);
      writeFileSync(path, text);
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
