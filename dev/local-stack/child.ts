// One child of the local stack: its output prefixed with its name, its last lines kept, stopped with its whole group.
import { startProcess, type ProcessExit } from '../../tools/child-process.ts';

export type ChildExit = ProcessExit;

export interface StackChild {
  name: string;
  pid: number;
  /** Set once the process has exited. */
  readonly exit: ChildExit | undefined;
  exited: Promise<ChildExit>;
  /** Its last `count` log entries, one line each (a pretty-printed entry's fields folded in), request logs left out. */
  lastLines(count?: number): string[];
  /** SIGTERM to its process group, SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs: number): Promise<ChildExit>;
}

export interface ChildOptions {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Where each prefixed line goes (stdout in the stack). */
  print: (line: string) => void;
  /** Put before each line; default `name     | `. The smoke's lines go out bare. */
  prefix?: string;
  /** Lines (escape codes removed) it returns true for are kept in the tail but not printed. */
  hide?: (line: string) => boolean;
}

const KEEP_LINES = 400;
// The stack's own readiness polls fill a service's log with access lines; they explain nothing.
const ACCESS_LOG = /request completed|GET \/(api\/ready)? \d{3}/;
const ANSI = /\u001b\[[0-9;]*m/g;
// One request's line below warning level: pino-pretty's `INFO (backend/12): request completed {…}`, or the
// frontend's `2026-01-01T10:00:00.000Z GET /status.json 200 4ms` for any status below 500.
const REQUEST_LINE =
  /^\[[\d:.]+\] (?:TRACE|DEBUG|INFO) \([^)]*\): request completed\b|^\d{4}-\d\d-\d\dT\S+Z [A-Z]+ \S+ [1-4]\d\d \d+ms$/;

/** True for a request's access line that reports no failure (see REQUEST_LINE). */
export const isRequestLine = (line: string) => REQUEST_LINE.test(line);

export function startChild({
  name,
  command,
  args,
  env,
  cwd,
  print,
  prefix = `${name.padEnd(8)} | `,
  hide,
}: ChildOptions): StackChild {
  const tail: string[] = [];
  const partial = { stdout: '', stderr: '' };
  const relay = (chunk: Buffer, stream: 'stdout' | 'stderr') => {
    const parts = (partial[stream] + chunk.toString('utf8')).split('\n');
    partial[stream] = parts.pop() ?? '';
    for (const line of parts) {
      const plain = line.replace(ANSI, '');
      if (!hide?.(plain)) print(prefix + line);
      tail.push(plain);
      if (tail.length > KEEP_LINES) tail.shift();
    }
  };
  // Its own process group: a terminal's Ctrl-C reaches only the stack, which then stops children in order.
  const child = startProcess(command, args, { env, cwd, group: true, onOutput: relay });
  const exited = child.exited.then((exit) => {
    if (exit.error) tail.push(`cannot start ${command}: ${exit.error.message}`);
    return exit;
  });
  return {
    name,
    pid: child.pid,
    get exit() {
      return child.exit;
    },
    exited,
    lastLines: (count = 5) => lastEntries(tail, count),
    stop: (graceMs) => child.stop(graceMs),
  };
}

/** Last resort when the stack itself dies: no child of ours outlives it. */
export function killGroupsNow(children: Iterable<StackChild>): void {
  for (const child of children) {
    if (child.exit || child.pid < 0) continue;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

/** Folds indented continuation lines (pino-pretty fields) into the entry they belong to. */
function lastEntries(lines: string[], count: number): string[] {
  const entries: string[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    if (/^\s|^[}\]]/.test(line) && entries.length > 0) entries[entries.length - 1] += ` ${line.trim()}`;
    else entries.push(line.trim());
  }
  return entries
    .filter((entry) => !ACCESS_LOG.test(entry))
    .slice(-count)
    .map((entry) => (entry.length > 300 ? `${entry.slice(0, 299)}…` : entry));
}
