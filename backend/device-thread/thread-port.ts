// Messages between two threads, sent as one array per event-loop turn: the burst of frames 500 devices send at once
// is read in a turn or two and crosses as one message, not 500. Each message costs a serialization and a wake-up of
// the other thread, and the main thread, which answers the probes, pays its side of every one. Both ends of the
// device thread's channel speak this (worker-start.ts, device-worker.ts).
import type { MessagePort, Worker } from 'node:worker_threads';

/** Either end of a channel: the Worker on the main thread, parentPort in the thread. */
export type ThreadEnd = Pick<Worker | MessagePort, 'postMessage'>;

export interface ThreadPort<T> {
  /** Queues `message` for the end of this turn; what `transfer` lists moves to the other thread, uncopied. */
  post(message: T, transfer?: ArrayBuffer[]): void;
}

export function threadPort<T>(end: ThreadEnd): ThreadPort<T> {
  let queued: T[] = [];
  let moved: ArrayBuffer[] = [];

  function flush() {
    const [batch, transfer] = [queued, moved];
    [queued, moved] = [[], []];
    end.postMessage(batch, transfer);
  }

  return {
    post(message, transfer) {
      if (queued.length === 0) setImmediate(flush);
      queued.push(message);
      if (transfer) moved.push(...transfer);
    },
  };
}

/** A 'message' listener that calls `listener` with each message of a batch, in order. */
export function eachMessage<T>(listener: (message: T) => void): (batch: T[]) => void {
  return (batch) => {
    for (const message of batch) listener(message);
  };
}
