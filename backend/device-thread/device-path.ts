// Whether the device path keeps up, for the `devices` readiness check: `down` while no device thread runs (it
// stopped and a new one is starting), `behind` while the oldest frame read from a socket has waited longer than
// `behindMs` for the thread to handle it (counted from when a thread runs, for frames held before), or the oldest
// reading the thread handled has waited longer than that for its write (behind its socket's write in flight or its
// device's other sockets' writes: what a flood of one token delays), else `ok`. Judged every `everyMs` from what
// the relay holds and what the thread's last probe answer said: no I/O.

export type DevicePathState = 'ok' | 'behind' | 'down';

/** Frames a device thread has not handled this long stand for a path that cannot keep up. */
export const DEVICE_PATH_BEHIND_MS = 2000;

export interface DevicePathOptions {
  /** When the oldest frame not yet handled was read (performance.now()), or undefined when none waits. */
  oldestAt: () => number | undefined;
  /** When the oldest reading waiting for a write was received (performance.now()), or undefined when none waits. */
  unwrittenAt?: () => number | undefined;
  onState: (state: DevicePathState, reason?: string) => void;
  behindMs?: number;
  everyMs?: number;
  now?: () => number;
}

export interface DevicePath {
  /** A device thread runs (true) or stopped (false): said at once. */
  thread(running: boolean, reason?: string): void;
  /** Judges the frames now (the timer does, every `everyMs`). */
  judge(): void;
  stop(): void;
}

export function watchDevicePath(options: DevicePathOptions): DevicePath {
  const { oldestAt, unwrittenAt = () => undefined, onState, behindMs = DEVICE_PATH_BEHIND_MS } = options;
  const { everyMs = 500, now = () => performance.now() } = options;
  let running = false;
  // Frames held while no thread ran (before the first was ready) are judged by their wait since one runs.
  let runningSince = 0;
  let last: DevicePathState | undefined;
  const tell = (state: DevicePathState, reason?: string) => {
    if (state === last) return;
    last = state;
    onState(state, reason);
  };
  function judge() {
    if (!running) return;
    const at = oldestAt();
    const unwritten = unwrittenAt();
    const waited = at === undefined ? 0 : now() - Math.max(at, runningSince);
    const writeWaited = unwritten === undefined ? 0 : now() - unwritten;
    if (waited <= behindMs && writeWaited <= behindMs) return tell('ok');
    const reason =
      waited >= writeWaited
        ? `the oldest frame read has waited ${Math.round(waited)} ms for the device thread`
        : `the oldest reading received has waited ${Math.round(writeWaited)} ms for its write`;
    tell('behind', `${reason} (bound ${behindMs} ms)`);
  }
  const timer = setInterval(judge, everyMs).unref();
  return {
    thread(value, reason) {
      if (value && !running) runningSince = now();
      running = value;
      if (value) judge();
      else tell('down', reason ?? 'no device thread runs');
    },
    judge,
    stop: () => clearInterval(timer),
  };
}
