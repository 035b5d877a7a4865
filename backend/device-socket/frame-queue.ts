// The device frames waiting to be handled, and the rule for how many are handled at a time, without I/O: every
// socket's frames in one queue, taken round robin across sockets (each socket's in the order they came), one frame of
// each socket that had frames waiting when the slice started and a few milliseconds' worth at most per slice, and a
// socket told to pause once it has too many waiting, to resume once it has none. The sockets' pump (frame-slices.ts)
// runs one slice per event-loop turn, so that probes are answered between.
//
// One round per slice, not the whole few milliseconds: a quiet device's reading needs several turns of the device
// thread (its frame, its insert's reply, its summary's reply), and each turn's slice is spent on whatever else waits.
// Under a flood of a few busy sockets, a slice of 5 ms was 5 ms of the flood's frames before every step of another
// device's reading; a round is one frame of each, a fraction of that. With hundreds of sockets a round lasts longer
// than the milliseconds, which bound it as before.

export interface FrameQueueOptions {
  /**
   * How long one slice may handle frames (it handles one at least, however long that takes); it also ends once each
   * socket that had frames waiting when it started has had one.
   */
  sliceMs?: number;
  /** Frames a socket may have waiting before it is paused. */
  pauseAt?: number;
  now?: () => number;
}

export interface FrameQueue<O, F> {
  /** Queues `frame` of `owner`; true when `owner` should be paused now (it has `pauseAt` waiting, and was not). */
  push(owner: O, frame: F): boolean;
  /** Starts a slice: `next` gives frames until each socket waiting now had one, or it has lasted `sliceMs`. */
  startSlice(): void;
  /** The next frame while the slice lasts, and whether its owner, paused, has none left and should resume. */
  next(): { owner: O; frame: F; resume: boolean } | undefined;
  /** Takes every frame `owner` has waiting, in order, and forgets it (its socket closed or ended). */
  takeAll(owner: O): F[];
  /** Frames waiting, all sockets together. */
  readonly size: number;
}

export function createFrameQueue<O, F>({
  sliceMs = 5,
  pauseAt = 8,
  now = () => performance.now(),
}: FrameQueueOptions = {}): FrameQueue<O, F> {
  const waiting = new Map<O, F[]>();
  // Owners with frames waiting, in turn: one frame each, then to the back.
  let turns: O[] = [];
  const paused = new Set<O>();
  let size = 0;
  let sliceStart = 0;
  let handled = 0;
  // Frames this slice may give: one per socket waiting when it started (`turns` holds each socket once).
  let round = 0;
  return {
    push(owner, frame) {
      const frames = waiting.get(owner);
      if (frames) frames.push(frame);
      else {
        waiting.set(owner, [frame]);
        turns.push(owner);
      }
      size += 1;
      if (paused.has(owner) || waiting.get(owner)!.length < pauseAt) return false;
      paused.add(owner);
      return true;
    },
    startSlice() {
      sliceStart = now();
      handled = 0;
      round = turns.length;
    },
    next() {
      if (turns.length === 0 || handled >= round || (handled > 0 && now() - sliceStart >= sliceMs)) return undefined;
      const owner = turns.shift()!;
      const frames = waiting.get(owner)!;
      const frame = frames.shift()!;
      size -= 1;
      handled += 1;
      if (frames.length > 0) turns.push(owner);
      else waiting.delete(owner);
      const resume = frames.length === 0 && paused.delete(owner);
      return { owner, frame, resume };
    },
    takeAll(owner) {
      const frames = waiting.get(owner) ?? [];
      waiting.delete(owner);
      paused.delete(owner);
      if (frames.length > 0) turns = turns.filter((o) => o !== owner);
      size -= frames.length;
      return frames;
    },
    get size() {
      return size;
    },
  };
}
