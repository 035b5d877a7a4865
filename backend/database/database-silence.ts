// How the database monitor tells a hung database from a busy one: silence is time with no reply from the server,
// less the time this process's own event loop was blocked and so could not have read a reply that was there.
import { MongoNetworkTimeoutError } from 'mongodb';

export interface Silence {
  /** When the server last answered anything: a heartbeat or a command. */
  lastLife: number;
  /** Loop lag measured since `lastLife`: time no reply could have been read, so not the database's silence. */
  blocked: number;
  /** When the watchdog last ran; the next run is due `intervalMs` later, and any lateness is lag. */
  lastTick: number;
}

export function startSilence(now: number): Silence {
  return { lastLife: now, blocked: 0, lastTick: now };
}

/** The server answered: a heartbeat or a command succeeded. */
export function heardFrom(silence: Silence, now: number): Silence {
  return { lastLife: now, blocked: 0, lastTick: silence.lastTick };
}

/**
 * The watchdog ran at `now`, due `intervalMs` after its last run: the lateness is the loop's lag. Only the part
 * of it after the last reply counts, so a block that ended in a reply is not discounted twice.
 */
export function ticked(silence: Silence, now: number, intervalMs: number): Silence {
  const lagFrom = Math.max(silence.lastTick + intervalMs, silence.lastLife);
  return { ...silence, blocked: silence.blocked + Math.max(0, now - lagFrom), lastTick: now };
}

/** How long the database itself has been silent at `now`. */
export function silentMs(silence: Silence, now: number): number {
  return Math.max(0, now - silence.lastLife - silence.blocked);
}

export function isSilent(silence: Silence, now: number, staleAfterMs: number): boolean {
  return silentMs(silence, now) > staleAfterMs;
}

/**
 * A failure that only says the reply was late (the driver's socket timeout) is not a verdict of its own: a busy
 * server or a blocked loop looks the same to it. Silence decides. Any other failure (refused, reset) is one.
 */
export function isLateReply(failure: unknown): boolean {
  return failure instanceof MongoNetworkTimeoutError;
}
