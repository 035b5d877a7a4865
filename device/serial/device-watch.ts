// Notices that the device behind an open serial path vanished or was replaced. serialport treats a 0-byte read as
// "try again" and spins on it, and a hung-up tty (pty far end gone, some USB unplugs) answers every read with 0
// bytes, so without asking who is at the path a vanished device can go unnoticed.

/** Why the port must be given up, or undefined while `path` still names the device it was opened as. */
export function deviceChange(path: string, openedAs: string | undefined, now: string | undefined): string | undefined {
  if (now === openedAs) return undefined;
  return now === undefined ? `${path} is gone` : `${path} is now another device`;
}

interface DeviceWatchOptions {
  path: string;
  /** Names the device now at `path` (undefined when there is none). */
  identify: (path: string) => string | undefined;
  watchMs: number;
  /** Called with the reason at each check that finds the device changed, until stopped. */
  onChange: (reason: string) => void;
}

/** Asks every `watchMs` who is at `path`, comparing with who was there at the start; returns the stop. */
export function watchDevice({ path, identify, watchMs, onChange }: DeviceWatchOptions): () => void {
  const openedAs = identify(path);
  const timer = setInterval(function checkDevice() {
    const reason = deviceChange(path, openedAs, identify(path));
    if (reason !== undefined) onChange(reason);
  }, watchMs);
  timer.unref();
  return () => clearInterval(timer);
}
