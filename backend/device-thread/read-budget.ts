// How many bytes each device socket may have read and not yet handled by the device thread, without I/O: the main
// thread (device-relay.ts) counts each frame it passes on, the device thread tells it which frames it handled, and this
// says which socket to stop reading and which may read again. The bytes wait where they are read, so that is where
// they are bounded: the queue between the threads never grows past what the sockets' shares allow.

export interface ReadBudgetOptions {
  /** Bytes one socket may have unhandled; at this it is paused (not read: TCP pushes back on its device). */
  socketMax: number;
  /** Bytes all sockets together may have unhandled; past it the sockets above an equal part of it are paused. */
  totalMax: number;
}

export interface ReadBudget {
  /** Socket `id` read a frame of `bytes` at `at` (ms); true when it should stop being read now. */
  read(id: number, bytes: number, at: number): boolean;
  /** The device thread handled `frames` of `id`'s oldest frames; the sockets that may be read again. */
  credit(id: number, frames: number): number[];
  /** Whether the budget holds socket `id` paused. */
  isPaused(id: number): boolean;
  /** Socket `id` closed: what it held is forgotten; the sockets that may be read again. */
  forget(id: number): number[];
  /** Every socket closed (the device thread that held their frames is gone). */
  clear(): void;
  /** Bytes read and not yet handled, all sockets together. */
  total(): number;
  /** When the oldest frame not yet handled was read (ms), or undefined when every frame is handled. */
  oldestAt(): number | undefined;
}

interface SocketShare {
  /** Each unhandled frame's size and when it was read, oldest first. */
  frames: { bytes: number; at: number }[];
  held: number;
  paused: boolean;
}

export function createReadBudget({ socketMax, totalMax }: ReadBudgetOptions): ReadBudget {
  const shares = new Map<number, SocketShare>();
  let total = 0;
  let holders = 0;

  // A socket may read while under its own share and, once the total is reached, under an equal part of the total:
  // the heaviest sockets wait first, a device that sends little keeps being read.
  const mayRead = (share: SocketShare) =>
    share.held < socketMax && (total < totalMax || share.held === 0 || share.held < totalMax / holders);

  function resumable(): number[] {
    const ids: number[] = [];
    for (const [id, share] of shares) {
      if (!share.paused || !mayRead(share)) continue;
      share.paused = false;
      ids.push(id);
    }
    return ids;
  }

  return {
    read(id, bytes, at) {
      const share = shares.get(id) ?? { frames: [], held: 0, paused: false };
      shares.set(id, share);
      if (share.held === 0) holders += 1;
      share.frames.push({ bytes, at });
      share.held += bytes;
      total += bytes;
      if (share.paused || mayRead(share)) return false;
      share.paused = true;
      return true;
    },
    credit(id, frames) {
      const share = shares.get(id);
      if (!share) return [];
      const wasOver = total >= totalMax;
      for (const { bytes } of share.frames.splice(0, frames)) {
        share.held -= bytes;
        total -= bytes;
      }
      if (share.held === 0) holders -= 1;
      // Below the total again: every paused socket is judged anew; otherwise only the one credited.
      if (wasOver && total < totalMax) return resumable();
      if (!share.paused || !mayRead(share)) return [];
      share.paused = false;
      return [id];
    },
    isPaused: (id) => shares.get(id)?.paused ?? false,
    forget(id) {
      const share = shares.get(id);
      if (!share) return [];
      const wasOver = total >= totalMax;
      shares.delete(id);
      total -= share.held;
      if (share.held > 0) holders -= 1;
      return wasOver && total < totalMax ? resumable() : [];
    },
    clear() {
      shares.clear();
      total = 0;
      holders = 0;
    },
    total: () => total,
    oldestAt() {
      let oldest: number | undefined;
      for (const { frames } of shares.values()) {
        const at = frames[0]?.at;
        if (at !== undefined && (oldest === undefined || at < oldest)) oldest = at;
      }
      return oldest;
    },
  };
}
