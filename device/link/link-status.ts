// What the backend link says as its socket opens and closes: the readiness state and why, and the log line (with
// its level) for a lost socket or a failed attempt. Pure: the link feeds it each socket's end and the clock, and
// does the logging.
import { CLOSE_TRY_AGAIN_LATER } from '../../lib/device-protocol.ts';

const UNAUTHORIZED = 401;

/** How one socket ended. */
export interface SocketEnd {
  /** Whether it had opened (a lost socket) or not (a failed attempt). */
  opened: boolean;
  /** The status the backend answered the upgrade with, if it did. */
  refusedWith?: number | undefined;
  code: number;
  /** The close reason, else the last error's message. */
  why?: string | undefined;
}

/** A line to log. */
export interface StatusLine {
  level: 'warn' | 'debug';
  fields: Record<string, unknown>;
  msg: string;
}

export interface LinkStatusOptions {
  url: string;
  /** Whether a token is sent (the 401 line says so). */
  tokenSent: boolean;
  now?: () => number;
}

export interface LinkStatus {
  /** The link starts: it is down from now. */
  start(): void;
  /** A socket opened: how long the link was down. */
  opened(): { downMs: number };
  /**
   * A socket ended, with the retry delay and the backoff's attempt count: the state to report, and the line to log
   * (undefined when closing for good).
   */
  closed(
    end: SocketEnd,
    retry: { delayMs: number; attempt: number } | undefined,
  ): { state: 'disconnected' | 'unauthorized'; why: string; line?: StatusLine };
}

const RECONNECTING = 'reconnecting to resend from the oldest unacknowledged reading';

/** The same close, again and again (a bound the backend holds the device to), is logged once per this. */
export const REPEATED_CLOSE_MS = 5000;

export function createLinkStatus({ url, tokenSent, now = Date.now }: LinkStatusOptions): LinkStatus {
  let downSince = now();
  // Warn about a refused token once per run of refusals; retries after that are debug lines.
  let refusedInARow = 0;
  const repeats = sumRepeats(now);

  return {
    start() {
      downSince = now();
    },
    opened() {
      refusedInARow = 0;
      return { downMs: now() - downSince };
    },
    closed(end, retry) {
      const [state, why] = closedState(end);
      if (!retry) return { state, why };
      if (end.opened) {
        downSince = now();
        const repeated = repeats.seen(`${end.code} ${end.why ?? ''}`);
        return { state, why, ...(repeated === undefined ? {} : { line: lostLine(url, end, repeated) }) };
      }
      if (end.refusedWith === UNAUTHORIZED) refusedInARow += 1;
      return { state, why, line: failedLine(url, end, retry, { tokenSent, refusedInARow }) };
    },
  };
}

/**
 * An open socket closed: a warning saying why, as the backend's close reason says it (a 1013 may be the backend
 * dropping what it held, or a bound on this device's sockets); without one, a 1013 is said to be the former.
 * `repeated`: the same closes left unlogged since the last line.
 */
function lostLine(url: string, { code, why }: SocketEnd, repeated: number): StatusLine {
  const said = why ?? (code === CLOSE_TRY_AGAIN_LATER ? 'the backend dropped what it held' : undefined);
  const times = repeated > 0 ? ` (and ${repeated} times more in the last ${REPEATED_CLOSE_MS / 1000} s)` : '';
  return {
    level: 'warn',
    fields: { url, code, reason: why, ...(repeated > 0 ? { repeated } : {}) },
    msg: `backend socket closed${said ? `: ${said}` : ''}${times}; ${RECONNECTING}`,
  };
}

/**
 * Counts the same thing seen again within REPEATED_CLOSE_MS of its last line: `seen` gives undefined for one to
 * leave unlogged, else how many were left so since the last line (0 for a first or a different one).
 */
function sumRepeats(now: () => number) {
  let last: { key: string; at: number; unlogged: number } | undefined;
  return {
    seen(key: string): number | undefined {
      const at = now();
      if (last?.key === key && at - last.at < REPEATED_CLOSE_MS) {
        last.unlogged += 1;
        return undefined;
      }
      const unlogged = last?.key === key ? last.unlogged : 0;
      last = { key, at, unlogged: 0 };
      return unlogged;
    },
  };
}

/** A socket that never opened: the first of a run of failures is a warning, the retries after it debug lines. */
function failedLine(
  url: string,
  { refusedWith, why, code }: SocketEnd,
  { delayMs, attempt }: { delayMs: number; attempt: number },
  { tokenSent, refusedInARow }: { tokenSent: boolean; refusedInARow: number },
): StatusLine {
  if (refusedWith === UNAUTHORIZED) {
    return {
      level: refusedInARow === 1 ? 'warn' : 'debug',
      fields: { url, tokenSent, retryInMs: delayMs, attempt },
      msg: 'backend refused the device token (401)',
    };
  }
  const reason = refusedWith ? `answered the upgrade with ${refusedWith}` : (why ?? `closed with ${code}`);
  return {
    level: attempt === 1 ? 'warn' : 'debug',
    fields: { url, reason, retryInMs: delayMs, attempt },
    msg: 'backend socket unavailable; retrying',
  };
}

/** The state a closed socket leaves, and why, in a line: the backend's refusal, the close code, or the error. */
function closedState({ refusedWith, code, why }: SocketEnd): ['unauthorized' | 'disconnected', string] {
  if (refusedWith === UNAUTHORIZED) return ['unauthorized', 'the backend refused the token (HTTP 401)'];
  if (refusedWith !== undefined) return ['disconnected', `the backend answered the upgrade with HTTP ${refusedWith}`];
  return ['disconnected', why ? `closed (${code}): ${why}` : `closed (${code})`];
}
