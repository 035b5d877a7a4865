// Makes a directory and its missing parents, failing where a parent cannot hold one: Node's own
// `mkdirSync(dir, { recursive: true })` spins for ever (100% CPU, signals unheard) on a path under /proc.
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Like `mkdir -p`. Node's recursive mkdir answers ENOENT by making the parent and trying again; under /proc the
 * parent exists and mkdir still says ENOENT, so it never stops. Here a parent is made once, and an ENOENT after that
 * is the error (`/proc/spool`: ENOENT), as is a file in the way (EEXIST) or any other refusal.
 */
export function makeDirectory(dir: string): void {
  try {
    mkdirSync(dir);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EEXIST' && isDirectory(dir)) return;
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw error;
    makeDirectory(parent);
    try {
      mkdirSync(dir);
    } catch (again) {
      // Made by another process in between: fine. Anything else (ENOENT again, under /proc) is the answer.
      if ((again as NodeJS.ErrnoException).code !== 'EEXIST' || !isDirectory(dir)) throw again;
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
