// Spawns a child process, collects its output line by line, and always kills it (and its group) on stop().
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { withDeadline } from './deadline.ts';

export interface Spawned {
  child: ChildProcess;
  pid: number;
  /** Every stdout and stderr line so far, in arrival order. */
  lines: string[];
  stdout: string[];
  stderr: string[];
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  /** Waits for the exit within `ms`, or throws naming the command. */
  waitExit(ms: number): Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. Safe to call twice. */
  stop(graceMs?: number): Promise<void>;
  signal(name: NodeJS.Signals): void;
}

const running = new Set<Spawned>();

export function spawnProcess(command: string, args: string[], options: SpawnOptions = {}): Spawned {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...options });
  const lines: string[] = [];
  const stdout: string[] = [];
  const stderr: string[] = [];
  const collect = (into: string[]) => {
    let partial = '';
    return (chunk: Buffer) => {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        into.push(line);
        lines.push(line);
      }
    };
  };
  child.stdout?.on('data', collect(stdout));
  child.stderr?.on('data', collect(stderr));
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1));
    child.on('error', () => resolve(-1));
  });
  const handle: Spawned = {
    child,
    pid: child.pid ?? -1,
    lines,
    stdout,
    stderr,
    exited,
    waitExit: (ms) => withDeadline(exited, ms, `exit of ${command} ${args.join(' ')}`),
    signal(name) {
      if (child.exitCode === null && child.signalCode === null) child.kill(name);
    },
    async stop(graceMs = 3000) {
      running.delete(handle);
      if (child.exitCode !== null || child.signalCode !== null) return;
      killGroup(child, 'SIGCONT'); // a SIGSTOPped process cannot act on SIGTERM
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  running.add(handle);
  return handle;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

/** Stops everything this test file spawned and has not stopped yet (call from an `after` hook). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop()));
}

// A test file that crashes must not leave its children behind.
process.on('exit', () => {
  for (const p of running) killGroup(p.child, 'SIGKILL');
});
