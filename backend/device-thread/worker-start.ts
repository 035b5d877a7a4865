// Starts a worker thread that says `{ kind: 'ready' }` once it is up, and talks to it by typed messages, batched per
// turn both ways (thread-port.ts): the one way the backend runs a thread (device-thread.ts).
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../lib/logger.ts';
import { withDeadline } from '../../lib/with-deadline.ts';
import { eachMessage, threadPort } from './thread-port.ts';

export interface StartedWorker<In, Out extends { kind: string }> {
  /** Posts `message` at the end of this turn; what `transfer` lists moves to the thread instead of being copied. */
  post(message: In, transfer?: ArrayBuffer[]): void;
  /** Posts `message` and waits (within 5 s) for the first reply of kind `answer`. */
  ask(message: In, answer: Out['kind'], what: string): Promise<void>;
  /** Ends the thread at once. */
  end(): Promise<void>;
}

export interface StartWorkerOptions {
  /** Called once the thread stopped, whichever way, after it was ready. */
  onExit: (code: number) => void;
  log: Logger;
  timeoutMs?: number;
}

/**
 * The thread's young generation, at most: 24 MB, which V8 splits into three semi-spaces of 8 MiB (two make the new
 * space, 16 MiB; the third bounds its large-object space). Left to V8, a burst of short-lived garbage (a flood of
 * frames parsed) grows it to 32 MiB on Node 20 and 128 MiB on Node 24, and it stays that size long after the burst:
 * resident memory that never came back. Scavenges of a smaller space are more frequent, each as cheap (they cost what
 * survives, and little of a frame's garbage does).
 */
export const THREAD_YOUNG_GENERATION_MB = 24;

/** Runs `entry` with `workerData`; every message but `ready` goes to `onMessage`. Fails with one line. */
export async function startWorker<In, Out extends { kind: string }>(
  entry: URL,
  workerData: unknown,
  onMessage: (message: Out) => void,
  { onExit, log, timeoutMs = 10_000 }: StartWorkerOptions,
): Promise<StartedWorker<In, Out>> {
  const worker = new Worker(entry, {
    workerData,
    execArgv: withoutPreloads(process.execArgv),
    resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
  });
  await withDeadline(untilReady(worker), timeoutMs, {
    what: `the thread ${entry.pathname.split('/').pop()} to start`,
    onExpiry: () => void worker.terminate(),
  });
  worker.on('message', eachMessage(onMessage));
  worker.on('error', (error) => log.error({ err: error.message }, `thread error: ${error.message}`));
  worker.once('exit', onExit);
  const port = threadPort<In>(worker);
  return {
    post: port.post,
    ask(message, answer, what) {
      const answered = new Promise<void>((resolve) => {
        const listener = eachMessage((reply: Out) => {
          if (reply.kind !== answer) return;
          worker.off('message', listener);
          resolve();
        });
        worker.on('message', listener);
      });
      port.post(message);
      return withDeadline(answered, 5000, { what, unref: true });
    },
    end: async () => void (await worker.terminate()),
  };
}

const PRELOADS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader']);

/**
 * The process's options without its preloads, for a thread: a preload runs again in each thread, and one written in
 * TypeScript (`--import tsx --import ./x.ts`, as the test runner starts files) cannot load there, since tsx's hooks
 * do not reach a thread. The entry registers what it needs itself.
 */
export function withoutPreloads(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const [name] = execArgv[i]!.split('=', 1);
    if (!PRELOADS.has(name!)) kept.push(execArgv[i]!);
    else if (!execArgv[i]!.includes('=')) i += 1; // its value is the next argument
  }
  return kept;
}

/** Resolves on the thread's `ready`; rejects with one line when it fails or exits first. */
function untilReady(worker: Worker): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: unknown) =>
      reject(new Error(`a thread did not start: ${error instanceof Error ? error.message : String(error)}`));
    const exited = (code: number) => reject(new Error(`a thread did not start: it exited with ${code}`));
    const ready = eachMessage((message: { kind?: string }) => {
      if (message?.kind !== 'ready') return;
      worker.off('error', failed).off('exit', exited).off('message', ready);
      resolve();
    });
    worker.once('error', failed).once('exit', exited).on('message', ready);
  });
}
