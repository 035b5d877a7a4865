// Resident memory and open file descriptors of a process, read from /proc (Linux), for leak checks.
import { readFileSync, readdirSync } from 'node:fs';

/** Resident set size in MiB (VmRSS). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]);
  if (!Number.isFinite(kib)) throw new Error(`no VmRSS for process ${pid}`);
  return kib / 1024;
}

/** Open file descriptors (sockets, pipes, files): a leaked connection shows up here. */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

export const mib = (n: number) => `${n.toFixed(1)} MiB`;
