// The current time as an ISO 8601 string, formatted at most once a millisecond: a probe's body carries it, and
// under load a thousand probes a second would each pay Date's toISOString() for the same string.

/** A clock that formats `now()` (milliseconds since the epoch) only when it moved since the last call. */
export function createIsoClock(now: () => number = Date.now): () => string {
  let formattedAt = Number.NaN;
  let formatted = '';
  return function isoNow() {
    const ms = now();
    if (ms !== formattedAt) {
      formattedAt = ms;
      formatted = new Date(ms).toISOString();
    }
    return formatted;
  };
}

/** The process's clock: the probes of every app in it share the string of the current millisecond. */
export const isoNow = createIsoClock();
