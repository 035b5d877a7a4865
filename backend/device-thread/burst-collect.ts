// One full garbage collection of each thread once the device path has gone quiet after a burst of socket events. A
// flood of device sockets (frames, upgrades, closes) leaves both threads with garbage and young generations grown to
// their largest (the main thread's 16 → 32 MiB on Node 20, 64 on Node 24), which V8 gives back only once the process
// looks idle to it: 10 s after a flood the backend was still 25 to 65 MiB over its warm level. With this it is back
// at or under it (full-gc.ts). The price, once per burst: two full collections of each heap (about 20 MiB live),
// which hold the main thread (and /api/ready) meanwhile: 73 to 87 ms in all with the load average at 5, 100 to 340 ms
// each with it over 15 (2 cores). A backend that is quiet, or streams steadily, never pays it.

export interface BurstCollectOptions {
  /** Runs the collection (both threads'). */
  collect: () => void;
  /** Socket events (frames, opens, closes) since the last collection that make a burst worth one. */
  burstEvents?: number;
  /** No frame for this long after a burst: it is over. */
  quietMs?: number;
  /** How often the quiet is judged (a timer; tests call `tick`). */
  everyMs?: number;
  now?: () => number;
}

export interface BurstCollect {
  /** A socket event: a frame read, a socket opened or closed. */
  event(): void;
  /** Judges now whether a burst is over (the timer does, every `everyMs`). */
  tick(): void;
  stop(): void;
}

/**
 * A flood of 10 sockets for 10 s is some 8,000 frames; a device at its message rate sends 100 a second. Fewer events
 * leave little garbage, and a device path that goes quiet that rarely pays at most one collection per that many.
 */
export const BURST_EVENTS = 2000;
export const BURST_QUIET_MS = 3000;

export function watchBursts(options: BurstCollectOptions): BurstCollect {
  const { collect, burstEvents = BURST_EVENTS, quietMs = BURST_QUIET_MS, everyMs = 1000 } = options;
  const now = options.now ?? (() => performance.now());
  // Events since the last collection; `seen`: that count at the last tick, `activeAt`: the last tick it had grown.
  let events = 0;
  let seen = 0;
  let activeAt = now();
  function tick() {
    const at = now();
    if (events !== seen) [seen, activeAt] = [events, at];
    else if (events >= burstEvents && at - activeAt >= quietMs) {
      [events, seen] = [0, 0];
      collect();
    }
  }
  const timer = setInterval(tick, everyMs).unref();
  return {
    event: () => void (events += 1),
    tick,
    stop: () => clearInterval(timer),
  };
}
