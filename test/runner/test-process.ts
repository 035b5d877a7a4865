// A test process as the runner starts it: node running the file's bundle (compile-tests.ts), or with tsx, the SIGTERM
// clean-up and the results channel (fd 3), leader of its own process group, so a stop reaches whatever it started,
// and what it leaves behind is ended.
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { withDeadline } from '../../lib/with-deadline.ts';
import { waitFor } from '../support/deadline.ts';
import { projectRoot } from '../../tools/project-root.ts';
import { BUNDLES_ENV, ON_SIGTERM, PRELOADS, type TestBundles } from './bundles.ts';
import { groupRunning } from './process-group.ts';
import { RESULTS_ENV, RESULTS_FD, recordReader, type ResultRecord } from './results-channel.ts';

export interface TestExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Processes of its group were still running when it ended (the runner killed them). */
  leftover: boolean;
}

export interface TestProcess {
  pid: number;
  /** Resolves once it has exited, its group is gone and its output has been read. */
  ended: Promise<TestExit>;
  /** Lines for its stdin (a batch's file paths); `end()` closes it. */
  send(line: string): void;
  end(): void;
  /** SIGTERM to its group (its clean-ups run: test/support/exit-on-sigterm.ts), SIGKILL after `graceMs`. */
  stop(graceMs: number): Promise<TestExit>;
}

export interface TestProcessOptions {
  onRecord: (record: ResultRecord) => void;
  /** Its stdout and stderr as they come (what it printed other than through the channel). */
  onOutput: (text: string) => void;
  /** A batch (unit-batch.ts), which answers on the channel itself. */
  batch?: boolean;
  /** The run's bundles; without them (TEST_TSX=1), or without one for this file, it runs with tsx. */
  bundles?: TestBundles;
}

/** How long its output may go on after its group is gone (a process outside the group holding the pipe). */
const DRAIN_MS = 2000;
/**
 * How long its group has to empty by itself after it exits before what is left counts as left behind;
 * TEST_SETTLE_MS sets it (the runner's own tests, whose fixture leaves a `sleep` on purpose).
 */
const SETTLE_MS = Number(process.env.TEST_SETTLE_MS ?? 3000);

export function startTestProcess(script: string, options: TestProcessOptions): TestProcess {
  const { onRecord, onOutput } = options;
  const { args, bundled } = commandOf(script, options);
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', [RESULTS_ENV]: String(RESULTS_FD) };
  if (options.batch && bundled) env[BUNDLES_ENV] = options.bundles!.dir; // it runs its files' bundles
  const stdio = ['pipe', 'pipe', 'pipe', 'pipe'] as const;
  const child = spawn(process.execPath, args, { cwd: projectRoot, env, detached: true, stdio: [...stdio] });
  const pid = child.pid ?? -1;
  child.stdout!.on('data', (chunk: Buffer) => onOutput(chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => onOutput(chunk.toString('utf8')));
  child.stdio[RESULTS_FD]!.on('data', recordReader(onRecord));
  child.stdin!.on('error', () => {}); // a process that died before reading its stdin
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      /* the group is gone */
    }
  };
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
    child.on('error', () => resolve({ code: null, signal: null }));
  });
  const ended = exited.then(async (exit) => {
    // What it started may be ending with it (tsx's esbuild service ends when its stdin closes): a moment for that.
    const leftover = await waitFor(() => !groupRunning(pid), { timeout: SETTLE_MS, interval: 50 }).then(
      () => false,
      () => true,
    );
    signal('SIGKILL');
    await withDeadline(closed, DRAIN_MS, 'its output to end').catch(() => child.stdio.forEach((s) => s?.destroy()));
    return { ...exit, leftover };
  });
  const handle: TestProcess = {
    pid,
    ended,
    send: (line) => void child.stdin!.write(`${line}\n`),
    end: () => void child.stdin!.end(),
    async stop(graceMs) {
      signal('SIGCONT'); // a stopped process cannot act on SIGTERM
      signal('SIGTERM');
      await withDeadline(exited, graceMs, 'the test process to stop').catch(() => signal('SIGKILL'));
      return ended;
    },
  };
  live.set(handle, signal);
  void ended.then(() => live.delete(handle));
  return handle;
}

/**
 * Node's arguments: the SIGTERM clean-up and, for a file run alone, its report at exit (a batch reports each file
 * itself) preloaded, from their bundles when the script has one. Source maps keep its stack traces on the sources.
 */
function commandOf(script: string, { batch, bundles }: TestProcessOptions): { args: string[]; bundled: boolean } {
  const preloads = batch ? [ON_SIGTERM] : PRELOADS;
  const bundle = bundles?.of(script);
  const bundled = preloads.map((preload) => bundles?.of(preload));
  if (bundle && bundled.every((preload) => preload !== undefined)) {
    const imports = bundled.flatMap((preload) => ['--import', pathToFileURL(preload).href]);
    return { args: ['--enable-source-maps', ...imports, bundle], bundled: true };
  }
  const imports = ['tsx', ...preloads.map((preload) => `./${preload}`)].flatMap((preload) => ['--import', preload]);
  return { args: [...imports, script], bundled: false };
}

// The test processes not yet ended, with their group's signal: a runner that exits takes their groups with it.
const live = new Map<TestProcess, (name: NodeJS.Signals) => void>();
process.on('exit', () => live.forEach((signal) => signal('SIGKILL')));

/** Stops every test process still running (an interrupted run), each with its clean-ups. */
export async function stopAll(graceMs: number): Promise<void> {
  await Promise.all([...live.keys()].map((test) => test.stop(graceMs)));
}
