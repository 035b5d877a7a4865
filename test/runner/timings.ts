// How long each file took last time, kept in .tmp/test-times.json (git-ignored), so the next run starts the
// longest files first and no slot is left running one long file alone at the end. Several runs may share the
// file: each merges its own times in and replaces the file whole (a rename), so a reader never sees half of one.
// A fresh clone (CI, a newcomer) has none: it starts from test/file-times.json, the times of a whole run written
// by `test/run.ts --save-times` and committed; ordered by deadlines alone, the Chromium-heavy files (all at the
// default deadline) ran in path order, together, at the end.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../tools/project-root.ts';

const PATH = join(projectRoot, '.tmp', 'test-times.json');
export const SEED_PATH = join(projectRoot, 'test', 'file-times.json');

function readTimes(path: string): [string, number][] {
  try {
    return Object.entries(JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>);
  } catch {
    return [];
  }
}

/** The last known time of each file, in ms (this checkout's own, else the committed seed's); may be empty. */
export function lastTimes(): Map<string, number> {
  return new Map([...readTimes(SEED_PATH), ...readTimes(PATH)]);
}

/**
 * Writes the seed a fresh clone orders its first run by: these files' times in whole seconds, beside the times the
 * seed has of the files this run did not take that are still there (the fault suite's run keeps the suite's), by path.
 */
export function saveSeed(results: { file: string; ms: number; batch?: true }[], seedPath = SEED_PATH): void {
  const seed = new Map(readTimes(seedPath).filter(([file]) => existsSync(join(projectRoot, file))));
  for (const r of results) if (!r.batch) seed.set(r.file, Math.round(r.ms / 1000) * 1000);
  const byPath = [...seed].sort(([a], [b]) => a.localeCompare(b));
  writeFileSync(seedPath, `${JSON.stringify(Object.fromEntries(byPath), null, 2)}\n`); // as Prettier writes it
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
