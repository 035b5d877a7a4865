// The I/O half of frame-queue.ts: device frames handled a slice per event-loop turn (setImmediate between slices, so
// that timers, probes and other sockets' I/O run in between), a socket that falls behind paused until its frames are
// handled, and the frames of a socket that closed handled at once, before it is released.
import { createFrameQueue, type FrameQueueOptions } from './frame-queue.ts';

/** A socket as the slices see it. */
export interface FrameOwner<F> {
  handle(frame: F): void;
  /** Stop reading from the peer (ws: the underlying socket's pause()). */
  pause(): void;
  resume(): void;
}

export interface FrameSlices<F> {
  /** Queues a frame of `owner`, to be handled in a later turn, in order. */
  push(owner: FrameOwner<F>, frame: F): void;
  /** Handles now every frame `owner` still has waiting (its socket closed: what it sent before is still handled). */
  flush(owner: FrameOwner<F>): void;
  /** Forgets `owner`'s waiting frames unhandled (its socket was ended by us), and lets it read again; how many. */
  drop(owner: FrameOwner<F>): number;
}

export function createFrameSlices<F>(options: FrameQueueOptions = {}): FrameSlices<F> {
  const queue = createFrameQueue<FrameOwner<F>, F>(options);
  let scheduled = false;

  function slice() {
    scheduled = false;
    queue.startSlice();
    try {
      for (let next = queue.next(); next; next = queue.next()) {
        if (next.resume) next.owner.resume();
        next.owner.handle(next.frame);
      }
    } finally {
      schedule();
    }
  }
  function schedule() {
    if (scheduled || queue.size === 0) return;
    scheduled = true;
    setImmediate(slice);
  }

  return {
    push(owner, frame) {
      if (queue.push(owner, frame)) owner.pause();
      schedule();
    },
    flush(owner) {
      for (const frame of queue.takeAll(owner)) owner.handle(frame);
    },
    drop(owner) {
      const dropped = queue.takeAll(owner).length;
      owner.resume();
      return dropped;
    },
  };
}
