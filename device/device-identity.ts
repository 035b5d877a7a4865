// Names the device a serial path points at now, so a vanished or replaced device is noticed.
import { statSync } from 'node:fs';

/** `rdev:ino` of the device node behind `path` (links followed), or undefined when there is none. */
export function deviceIdentity(path: string): string | undefined {
  try {
    const stat = statSync(path);
    return `${stat.rdev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}
