// The CPU time a process has used so far (user + system), read from Linux's /proc/<pid>/stat: what a server spent
// on a load run, whatever else the machine was doing meanwhile.
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux Node supports). */
const TICKS_PER_SECOND = 100;

/** Milliseconds of CPU used by `pid` since it started. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`/proc/${pid}/stat: no utime/stime in ${JSON.stringify(stat)}`);
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** Runs `load` and returns its result with the server's CPU milliseconds per 1,000 requests during it. */
export async function withServerCpu<T extends { requests: number }>(
  pid: number,
  load: () => Promise<T>,
): Promise<T & { cpuPerKilo: number }> {
  const before = cpuMs(pid);
  const result = await load();
  const cpu = cpuMs(pid) - before;
  return { ...result, cpuPerKilo: result.requests > 0 ? (cpu / result.requests) * 1000 : Number.NaN };
}
