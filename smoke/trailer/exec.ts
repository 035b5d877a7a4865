// Runs one external command from an argument list (never through a shell) under a time limit, keeping its output's tail.
import { spawn } from 'node:child_process';

export interface CommandResult {
  /** Exit code; null when it was killed or never started. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The executable was not found (ENOENT): treated as "not installed". */
  missing: boolean;
  timedOut: boolean;
  /** Why it could not start, when it could not (other than missing). */
  error?: string;
}

export interface CommandOptions {
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

// A compose build can print megabytes; only the end explains a failure.
const KEEP_BYTES = 64 * 1024;
const KILL_GRACE_MS = 5000;

export function runCommand(command: string, args: string[], { timeoutMs, env = process.env, cwd }: CommandOptions): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, cwd, shell: false, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout = (stdout + chunk.toString('utf8')).slice(-KEEP_BYTES)));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-KEEP_BYTES)));
    let killer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      killer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    }, timeoutMs);
    const finish = (result: Partial<CommandResult>) => {
      clearTimeout(timer);
      clearTimeout(killer);
      resolve({ code: null, stdout, stderr, missing: false, timedOut, ...result });
    };
    child.on('error', (error: NodeJS.ErrnoException) =>
      finish(error.code === 'ENOENT' ? { missing: true } : { error: error.message }),
    );
    child.on('close', (code) => finish({ code }));
  });
}

const lines = (text: string) => text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);

/** Why a command did not succeed, in a few words: its first (or last) line of complaint. */
export function explain(name: string, result: CommandResult, which: 'first' | 'last' = 'last', timeoutMs?: number): string {
  if (result.missing) return `${name} not found on PATH`;
  if (result.error) return `${name} could not start: ${result.error}`;
  if (result.timedOut) return `${name} gave no answer within ${timeoutMs ? `${Math.round(timeoutMs / 1000)} s` : 'its time limit'}`;
  const said = lines(result.stderr).length ? lines(result.stderr) : lines(result.stdout);
  const line = which === 'first' ? said[0] : said[said.length - 1];
  return line ?? `${name} exited with code ${result.code}`;
}
