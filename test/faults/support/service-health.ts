// After a fault run: the process's memory and open handles against its warm level, and its log free of errors.
import type { Spawned } from '../../helpers/spawn-process.ts';
import { openFds, rssMiB } from './process-stats.ts';

export interface Footprint {
  rss: number;
  fds: number;
}

export const footprint = (pid: number): Footprint => ({ rss: rssMiB(pid), fds: openFds(pid) });

/** Log lines at error level or above (pino level ≥ 50), and anything on stderr: a crash or unhandled rejection. */
export function errorOutput(proc: Spawned): string[] {
  const errors = proc.stdout.filter((line) => {
    try {
      return (JSON.parse(line) as { level?: number }).level! >= 50;
    } catch {
      return line.trim() !== ''; // a production service prints nothing but JSON lines
    }
  });
  return [...errors, ...proc.stderr.filter((line) => line.trim() !== '')];
}
