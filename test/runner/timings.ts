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

/**
 * `items` ordered longest first by `length` (ms). Files that take turns at one resource (`turnsOf` names it) run one
 * after another, so they count as one long file, the sum of theirs: a chain that long starts early.
 */
export function longestFirst<T extends { file: string }>(
  items: T[],
  length: (file: string) => number,
  turnsOf: (file: string) => string | undefined = () => undefined,
): T[] {
  const chains = new Map<string, number>();
  for (const { file } of items) {
    const turns = turnsOf(file);
    if (turns) chains.set(turns, (chains.get(turns) ?? 0) + length(file));
  }
  const key = ({ file }: T) => chains.get(turnsOf(file) ?? '') ?? length(file);
  return [...items].sort((a, b) => key(b) - key(a) || length(b.file) - length(a.file));
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
