// A worker thread kept running: started once (a failure to start is the caller's, in one line), and started again
// a second after it stops, for as long as it takes, until it is stopped on purpose (device-thread.ts).
import type { Logger } from '../../lib/logger.ts';
import { startWorker, type StartedWorker } from './worker-start.ts';

const RESTART_DELAY_MS = 1000;
/**
 * The first start's deadline. It loads alongside the rest of start-up (the backend serves meanwhile, its `devices`
 * check `starting`): on a machine whose 2 cores ran 40 other jobs, the 10 s a restart gets were missed, and the
 * backend stopped. A start that fails outright still stops it at once.
 */
const FIRST_START_MS = 60_000;

export interface KeptThread<In, Out extends { kind: string }> {
  /** Posts `message` (moving what `transfer` lists); false, and nothing posted, while no thread runs. */
  post(message: In, transfer?: ArrayBuffer[]): boolean;
  /** As StartedWorker's; settles at once while no thread runs. */
  ask(message: In, answer: Out['kind'], what: string): Promise<void>;
  /** No more restarts; ends the thread once `last` (a last question, say) settled. */
  stop(last?: (thread: StartedWorker<In, Out>) => Promise<void>): Promise<void>;
  /** Settles once the first thread is ready; rejects, in one line, when it could not start. */
  started: Promise<void>;
}

export interface KeptThreadOptions {
  log: Logger;
  /** The thread stopped (not on purpose): what it held is gone. Called before the next one starts. */
  onStopped: (code: number) => void;
  /** Each new thread, once ready (the first one too), before anything else is posted to it. */
  onStarted: (thread: StartedWorker<any, any>) => void;
  /** What to call it in log lines. */
  name: string;
}

/** Starts the first thread and returns at once: the caller goes on with its own start-up meanwhile (`started`). */
export function keepThread<In, Out extends { kind: string }>(
  entry: URL,
  workerData: unknown,
  onMessage: (message: Out) => void,
  { log, onStopped, onStarted, name }: KeptThreadOptions,
): KeptThread<In, Out> {
  let thread: StartedWorker<In, Out> | undefined;
  let stopping = false;

  function exited(code: number) {
    thread = undefined;
    if (stopping) return;
    log.error({ code }, `the ${name} stopped (exit code ${code}); starting a new one`);
    onStopped(code);
    setTimeout(again, RESTART_DELAY_MS).unref();
  }
  function again() {
    if (stopping) return;
    start(undefined).catch((error: Error) => {
      log.error({ err: error.message }, `${error.message}; trying again`);
      setTimeout(again, RESTART_DELAY_MS).unref();
    });
  }
  async function start(timeoutMs: number | undefined) {
    const options = { onExit: exited, log, ...(timeoutMs ? { timeoutMs } : {}) };
    const ready = await startWorker<In, Out>(entry, workerData, onMessage, options);
    // Stopped while it was starting: it is not wanted any more.
    if (stopping) return void (await ready.end());
    thread = ready;
    onStarted(thread);
  }
  const started = start(FIRST_START_MS);
  // The caller awaits it once its own start-up is done; until then a failure must not count as unhandled.
  started.catch(() => {});

  return {
    post(message, transfer) {
      thread?.post(message, transfer);
      return thread !== undefined;
    },
    ask: async (message, answer, what) => thread?.ask(message, answer, what),
    async stop(last) {
      stopping = true;
      const current = thread;
      if (!current) return;
      await (last ? last(current) : Promise.resolve()).finally(() => current.end());
    },
    started,
  };
}
