// The backend's side of a device link's heartbeat: a pong only when the socket has been quiet. A busy backend
// reads a socket late (its frames wait in the kernel, or the socket is paused while they wait in the queue), so a
// device's ping can go unanswered for seconds; an unsolicited pong then tells the device the backend is alive.
// A socket that sent anything lately (an ack, the pong ws sends for each ping it reads) needs none: the device takes
// any frame as a sign of life, and a pong to every socket twice a second was a write per socket, in bursts, that
// cost the backend a twentieth of its CPU while a fleet streamed.

/** Checked this often. */
export const HEARTBEAT_CHECK_MS = 250;
/**
 * Quiet this long (more than the device's ping interval, 1 s by default, so that an idle device whose pings are read
 * on time gets none), a socket gets a pong: the longest silence is this plus one check, well within the device's
 * silence limit (2.5 s by default).
 */
export const HEARTBEAT_QUIET_MS = 1250;

/** The pure rule: whether a socket that last sent at `lastSentAt` is owed a pong at `now`. */
export function owesPong(lastSentAt: number, now: number, quietMs = HEARTBEAT_QUIET_MS): boolean {
  return now - lastSentAt >= quietMs;
}

export interface QuietHeartbeat {
  /** The socket sent something: the quiet starts again. */
  sent(): void;
  stop(): void;
}

/** Calls `pong` whenever the socket has been quiet for `quietMs`; `now` is for tests. */
export function startQuietHeartbeat(
  pong: () => void,
  { quietMs = HEARTBEAT_QUIET_MS, checkMs = HEARTBEAT_CHECK_MS, now = () => performance.now() } = {},
): QuietHeartbeat {
  let lastSentAt = now();
  const timer = setInterval(() => {
    if (!owesPong(lastSentAt, now(), quietMs)) return;
    lastSentAt = now();
    pong();
  }, checkMs);
  return {
    sent: () => (lastSentAt = now()),
    stop: () => clearInterval(timer),
  };
}
