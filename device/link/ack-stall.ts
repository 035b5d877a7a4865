// Whether the backend still acknowledges what the device holds: a device connected with readings (or declared
// losses) waiting and no ack for a while makes no progress, and says so in its readiness (`acks`: ok | stalled)
// instead of reporting ready while nothing is stored. Pure: the caller says what happened and when.
export type AckState = 'ok' | 'stalled';

export interface AckStall {
  /** An ack came, or a socket opened: progress is possible from now. */
  progress(): void;
  /** The state now, with `waiting` readings and losses held and the socket `connected` or not. */
  state(waiting: number, connected: boolean): AckState;
}

export function createAckStall({ stallMs, now = Date.now }: { stallMs: number; now?: () => number }): AckStall {
  let since = now();
  return {
    progress() {
      since = now();
    },
    state(waiting, connected) {
      // Nothing waiting, or no socket (the `backend` check says that): the clock starts again from here.
      if (waiting === 0 || !connected) {
        since = now();
        return 'ok';
      }
      return now() - since > stallMs ? 'stalled' : 'ok';
    },
  };
}
