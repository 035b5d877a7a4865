// The project's one way to run a child process from an argument list (never a shell): start it, watch its
// output, stop it (optionally with its whole process group), or run it to the end under a time limit and say in
// a few words why it did not succeed.
import { spawn } from 'node:child_process';
import { withDeadline } from '../lib/with-deadline.ts';

export interface ProcessExit {
  /** Exit code; null when it was killed by a signal or never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why it could not start, when it could not. */
  error?: NodeJS.ErrnoException;
}

export interface ProcessOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * Run it as the leader of its own process group and send every signal to that group, so that whatever it
   * starts stops with it, and a terminal's Ctrl-C reaches only us (we then stop it in our own order).
   */
  group?: boolean;
  /** Each chunk of its stdout and stderr, as it arrives. */
  onOutput?: (chunk: Buffer, stream: 'stdout' | 'stderr') => void;
}

export interface ChildHandle {
  /** -1 when it never started. */
  pid: number;
  /** Set once the process has exited. */
  readonly exit: ProcessExit | undefined;
  /** Resolves when the process has exited (its output may still be arriving). */
  exited: Promise<ProcessExit>;
  /** Resolves when the process has exited and its stdout and stderr are closed: all output has been seen. */
  closed: Promise<ProcessExit>;
  /** Sends a signal to it (to its group with `group`); a process that is already gone is not an error. */
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs: number): Promise<ProcessExit>;
}

// Groups started here and not yet exited: a process that ends (or is told to end) takes them with it, since a
// group of its own is out of reach of any signal sent to ours.
const liveGroups = new Set<number>();
process.on('exit', () => {
  for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
});

function killGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

export function startProcess(
  command: string,
  args: string[],
  { env = process.env, cwd, group = false, onOutput }: ProcessOptions = {},
): ChildHandle {
  const child = spawn(command, args, { env, cwd, shell: false, detached: group, stdio: ['ignore', 'pipe', 'pipe'] });
  let exit: ProcessExit | undefined;
  if (group && child.pid) {
    const pid = child.pid;
    liveGroups.add(pid);
    child.on('exit', () => liveGroups.delete(pid));
  }
  child.stdout.on('data', (chunk: Buffer) => onOutput?.(chunk, 'stdout'));
  child.stderr.on('data', (chunk: Buffer) => onOutput?.(chunk, 'stderr'));
  // A child that cannot start emits 'error' and may or may not emit 'exit'/'close' after it: first one wins.
  const failed = new Promise<ProcessExit>((resolve) =>
    child.on('error', (error: NodeJS.ErrnoException) => resolve((exit ??= { code: null, signal: null, error }))),
  );
  const exited = Promise.race([
    failed,
    new Promise<ProcessExit>((resolve) => child.on('exit', (code, signal) => resolve((exit ??= { code, signal })))),
  ]);
  const closed = Promise.race([
    failed,
    new Promise<ProcessExit>((resolve) => child.on('close', (code, signal) => resolve(exit ?? { code, signal }))),
  ]);
  const signal = (name: NodeJS.Signals) => {
    try {
      if (group && child.pid) process.kill(-child.pid, name);
      else child.kill(name);
    } catch {
      /* already gone */
    }
  };
  return {
    pid: child.pid ?? -1,
    get exit() {
      return exit;
    },
    exited,
    closed,
    signal,
    async stop(graceMs) {
      if (exit) return exit;
      signal('SIGTERM');
      const result = await withDeadline(exited, graceMs, `${command} to stop`).catch(() => {
        signal('SIGKILL');
        return exited;
      });
      if (group) signal('SIGKILL'); // anything the child itself started and left behind in its group
      return result;
    },
  };
}

export interface CommandResult {
  /** Exit code; null when it was killed or never started. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The executable was not found (ENOENT): treated as "not installed". */
  missing: boolean;
  /** Its stdout or stderr ran past `keepBytes` and only the end was kept: never parse such output as a whole. */
  truncated: boolean;
  timedOut: boolean;
  /** Why it could not start, when it could not (other than missing). */
  error?: string;
}

export interface CommandOptions {
  timeoutMs: number;
  /** How much of each stream to keep, from its end (64 KiB unless said). */
  keepBytes?: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

// A compose build can print megabytes; only the end explains a failure.
const KEEP_BYTES = 64 * 1024;
const KILL_GRACE_MS = 5000;

/**
 * Runs a command to its end (SIGTERM at `timeoutMs`, SIGKILL 5 s later), keeping the tail of its output and saying
 * when that is not all of it (`truncated`).
 */
export async function runCommand(
  command: string,
  args: string[],
  { timeoutMs, env, cwd, keepBytes = KEEP_BYTES }: CommandOptions,
): Promise<CommandResult> {
  const tails = { stdout: tailKeeper(keepBytes), stderr: tailKeeper(keepBytes) };
  const child = startProcess(command, args, { env, cwd, onOutput: (chunk, stream) => tails[stream].add(chunk) });
  let timedOut = false;
  // Past the limit it is stopped, and still awaited: its output up to then explains the timeout.
  const { code, error } = await withDeadline(child.closed, timeoutMs, `${command} to finish`).catch(() => {
    timedOut = true;
    void child.stop(KILL_GRACE_MS);
    return child.closed;
  });
  const failure = error === undefined ? {} : error.code === 'ENOENT' ? { missing: true } : { error: error.message };
  const output = { stdout: tails.stdout.text(), stderr: tails.stderr.text() };
  const truncated = tails.stdout.cut() || tails.stderr.cut();
  return { code: error ? null : code, ...output, missing: false, truncated, timedOut, ...failure };
}

/** The last `keep` bytes of a stream, decoded once at the end (a character split across chunks stays whole). */
function tailKeeper(keep: number) {
  let chunks: Buffer[] = [];
  let held = 0;
  let dropped = false;
  return {
    add(chunk: Buffer) {
      chunks.push(chunk);
      held += chunk.length;
      if (held <= 2 * keep) return;
      const all = Buffer.concat(chunks);
      chunks = [all.subarray(all.length - keep)];
      held = keep;
      dropped = true;
    },
    text: () => {
      const all = Buffer.concat(chunks);
      return all.subarray(Math.max(0, all.length - keep)).toString('utf8');
    },
    cut: () => dropped || held > keep,
  };
}

const saidLines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

/** Why a command did not succeed, in a few words: its first (or last) line of complaint. */
export function explain(
  name: string,
  result: CommandResult,
  which: 'first' | 'last' = 'last',
  timeoutMs?: number,
): string {
  if (result.missing) return `${name} not found on PATH`;
  if (result.error) return `${name} could not start: ${result.error}`;
  if (result.timedOut)
    return `${name} gave no answer within ${timeoutMs ? `${Math.round(timeoutMs / 1000)} s` : 'its time limit'}`;
  const said = saidLines(result.stderr).length ? saidLines(result.stderr) : saidLines(result.stdout);
  const line = which === 'first' ? said[0] : said[said.length - 1];
  return line ?? `${name} exited with code ${result.code}`;
}
