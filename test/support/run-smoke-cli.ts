// Runs the smoke CLI as a real process and returns its exit code, output lines and wall time.
import { spawnProcess } from './spawn-process.ts';
import { root } from './spawn-service.ts';
import { serviceArgs } from './compiled-services.ts';
import { withDeadline } from './deadline.ts';
import { noticeLine } from '../../smoke/wait-notice.ts';

const NOTICE = noticeLine('');

export interface CliRun {
  code: number | string;
  stdout: string[];
  /** stderr without the notices of a slow wait. */
  stderr: string[];
  /** `smoke: waiting for …` lines (smoke/wait-notice.ts), which come or not with the machine's speed. */
  notices: string[];
  /** Wall time from spawn to the end of its output. */
  ms: number;
}

// Variables the CLI reads; a test sets the ones it means and never inherits them from the shell or the runner.
const SCRUB = [
  'SMOKE_FRONTEND_URL',
  'SMOKE_BACKEND_URL',
  'SMOKE_DEVICE_URL',
  'SMOKE_CA_FILE',
  'GITHUB_STEP_SUMMARY',
  'NO_COLOR',
  'FORCE_COLOR',
  'CHROME_PATH',
  'PUPPETEER_EXECUTABLE_PATH',
];

export function cliEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const merged: Record<string, string | undefined> = { ...process.env };
  for (const key of SCRUB) delete merged[key];
  Object.assign(merged, env);
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  return merged as NodeJS.ProcessEnv;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  deadline?: number;
  /** Wraps the node argv, e.g. in `script` to give the CLI a terminal. */
  wrap?: (argv: string[]) => string[];
  /** The script to run instead of the CLI (the benchmark's baseline). */
  entry?: string;
}

export async function runCli(
  args: string[],
  { env, deadline = 90_000, wrap, entry = 'smoke/cli.ts' }: RunOptions = {},
): Promise<CliRun> {
  const argv = [process.execPath, ...(await serviceArgs(root, entry)), ...args];
  const [command, ...rest] = wrap ? wrap(argv) : argv;
  const started = Date.now();
  const proc = spawnProcess(command!, rest, { cwd: root, env: cliEnv(env) });
  // 'close' (not 'exit') so every line written before exiting has been read.
  const closed = new Promise<void>((resolve) => proc.child.once('close', () => resolve()));
  try {
    await withDeadline(closed, deadline, `smoke ${args.join(' ')}`);
  } finally {
    await proc.stop();
  }
  // A wait's notice comes only when it lasts over a second: tests assert on the rest, and on `notices` apart.
  const stderr = proc.stderr.filter((line) => !line.startsWith(NOTICE));
  const notices = proc.stderr.filter((line) => line.startsWith(NOTICE));
  return { code: await proc.exited, stdout: proc.stdout, stderr, notices, ms: Date.now() - started };
}

/** Runs at most `limit` jobs at once: Chromium launches are heavy on a two-core machine. */
export function createPool(limit: number) {
  let active = 0;
  const queue: (() => void)[] = [];
  return async function pooled<T>(job: () => Promise<T>): Promise<T> {
    if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    active++;
    try {
      return await job();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}

/** Probe lines with their durations made comparable: `(123ms)` → `(Nms)`. */
export const normalise = (lines: string[]) =>
  lines.map((l) => (l.startsWith('[') ? l.replace(/ \(\d+ms\)/, ' (Nms)') : l));

/** The duration printed on each probe line, by `KIND target`. */
export function probeMs(lines: string[]): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of lines) {
    const m = /^\[(\w+)\] (\w+) \.\.\. (?:PASS|FAIL) \((\d+)ms\)/.exec(line);
    if (m) found.set(`${m[1]} ${m[2]}`, Number(m[3]));
  }
  return found;
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
