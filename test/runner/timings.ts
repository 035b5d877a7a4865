// How long each file took last time, kept in .tmp/test-times.json (git-ignored), so the next run starts the
// longest files first and no slot is left running one long file alone at the end. Several runs may share the
// file: each merges its own times in and replaces the file whole (a rename), so a reader never sees half of one.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../tools/project-root.ts';

const PATH = join(projectRoot, '.tmp', 'test-times.json');

/** The last known time of each file, in ms; empty when there is none or it cannot be read. */
export function lastTimes(): Map<string, number> {
  try {
    return new Map(Object.entries(JSON.parse(readFileSync(PATH, 'utf8')) as Record<string, number>));
  } catch {
    return new Map();
  }
}

/** `files` ordered longest first by their last time; a file never timed counts as long (it may be). */
export function longestFirst<T extends { file: string }>(items: T[], times: Map<string, number>): T[] {
  const time = (item: T) => times.get(item.file) ?? Number.MAX_SAFE_INTEGER;
  return [...items].sort((a, b) => time(b) - time(a));
}

/** Adds these times to the file; a failure to write only costs the next run its order. */
export function saveTimes(results: { file: string; ms: number; batch?: true }[]): void {
  const times = lastTimes();
  for (const r of results) if (!r.batch) times.set(r.file, r.ms);
  try {
    mkdirSync(join(projectRoot, '.tmp'), { recursive: true });
    const next = `${PATH}.${process.pid}`;
    writeFileSync(next, `${JSON.stringify(Object.fromEntries(times), null, 1)}\n`);
    renameSync(next, PATH);
  } catch {
    /* read-only checkout: the order stays alphabetical */
  }
}
