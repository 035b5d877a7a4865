// What the backend link sends next on a socket, and when: the hello first (with the backlog), then the declared
// losses, then frames of readings, one per token of a bucket under the backend's message rate and no more than its
// in-flight bound ahead of the last ack. Pure: the link does the socket I/O and the timers.
import {
  DEVICE_MESSAGE_RATE,
  DEVICE_MESSAGE_RATE_UNSAID,
  DEVICE_UNACKED_IN_FLIGHT_UNSAID,
  helloFrame,
  lostFrame,
  paceUnder,
  parseInFlightHeader,
  parseRateHeader,
  type Pace,
} from '../../lib/device-protocol.ts';
import { createTokenBucket } from '../../lib/token-bucket.ts';
import type { LossDeclaration, LossLedger } from '../spool/loss-ledger.ts';
import type { FrameLimits, Outbox } from '../spool/outbox.ts';

/** What the pacer reads of the spool. */
export interface PacedSpool {
  readonly session: string;
  readonly size: number;
  readonly outbox: Pick<Outbox, 'rewind' | 'hasNext' | 'next'>;
  readonly losses: Pick<LossLedger, 'rewind' | 'unsent'>;
}

export interface FramePacerOptions {
  spool: PacedSpool;
  limits: FrameLimits;
  /** The send pace; by default the backend's message rate less this link's pings (`paceUnder`). */
  pace?: Pace;
  /** How often the link pings, which the default pace leaves room for. */
  pingIntervalMs?: number;
  now?: () => number;
}

/** What a socket's backend takes: the pace to send at and the readings to keep in flight at most. */
export interface BackendTerms {
  pace: Pace;
  inFlightMax: number;
}

/** A message to send now, or how long until the pace allows one. */
export type Paced = { text: string } | { waitMs: number };

export interface FramePacer {
  /**
   * A new socket, held to `terms` from now on when given (what its backend said it takes): its hello (taking a
   * token); sending starts again from the oldest unacknowledged reading.
   */
  open(terms?: BackendTerms): string;
  /** The next message, or the wait for a token; undefined when all is sent or the in-flight bound is reached. */
  next(): Paced | undefined;
  /**
   * A hello reporting the backlog when the backend's last figure is stale (after an ack that sent no frame), if a
   * token is spare; else undefined (the next frame or ack reports it).
   */
  backlogHello(): string | undefined;
}

/** The pace of last resort: a frame a second, for a backend that says a rate nothing else fits under. */
const SLOWEST: Pace = { perSecond: 1, burst: 1 };

/** The headers of a backend's answer to the upgrade that set the terms (absent in older backends' answers). */
export interface BackendAnswer {
  rate?: string | undefined;
  inFlight?: string | undefined;
}

/**
 * The terms for a socket whose backend answered the upgrade with `answer`: under the rate it says and at most the
 * in-flight bound it says; for what it says not, or not readably, what backends that said nothing took.
 */
export function termsForBackend(answer: BackendAnswer, pingIntervalMs?: number): BackendTerms {
  const inFlightMax = parseInFlightHeader(answer.inFlight) ?? DEVICE_UNACKED_IN_FLIGHT_UNSAID;
  return { pace: paceForBackend(answer.rate, pingIntervalMs), inFlightMax };
}

/** The pace under a DEVICE_RATE_HEADER value (`header`), or under the rate of backends that said none. */
export function paceForBackend(header: string | undefined, pingIntervalMs?: number): Pace {
  const rate = parseRateHeader(header) ?? DEVICE_MESSAGE_RATE_UNSAID;
  try {
    return paceUnder(rate, pingIntervalMs === undefined ? {} : { pingIntervalMs });
  } catch {
    return SLOWEST;
  }
}

export function createFramePacer({ spool, limits, pace, pingIntervalMs, now }: FramePacerOptions): FramePacer {
  pace ??= paceUnder(DEVICE_MESSAGE_RATE, pingIntervalMs === undefined ? {} : { pingIntervalMs });
  const bucketOf = (p: Pace) => createTokenBucket({ ...p, ...(now ? { now } : {}) });
  let bucket = bucketOf(pace);
  // The limits on this socket: the in-flight bound is its backend's.
  let socketLimits = limits;
  // The backlog the backend last heard from this socket: each hello and frame carries it.
  let reported: number | undefined;
  // Losses to declare on this socket, ahead of readings: the backend acknowledges past a gap only once told.
  let declaring: LossDeclaration[] = [];

  /** A token now, or the wait for one. */
  function token(): { waitMs: number } | undefined {
    const waitMs = bucket.wait();
    if (waitMs > 0) return { waitMs };
    bucket.take();
    return undefined;
  }

  return {
    open(terms) {
      if (terms) {
        bucket = bucketOf(terms.pace);
        socketLimits = { ...limits, inFlightMax: terms.inFlightMax };
      }
      bucket.take();
      reported = spool.size;
      spool.outbox.rewind();
      spool.losses.rewind();
      declaring = [];
      return helloFrame(limits.deviceId, spool.session, reported);
    },
    next() {
      declaring.push(...spool.losses.unsent());
      if (declaring.length === 0 && !spool.outbox.hasNext(socketLimits)) return undefined;
      const wait = token();
      if (wait) return wait;
      const loss = declaring.shift();
      if (loss)
        return { text: lostFrame({ deviceId: limits.deviceId, session: loss.session }, loss.reason, loss.ranges) };
      const frame = spool.outbox.next(socketLimits)!;
      reported = frame.backlog;
      return { text: frame.text };
    },
    backlogHello() {
      if (spool.size === reported || !bucket.take()) return undefined;
      reported = spool.size;
      return helloFrame(limits.deviceId, spool.session, reported);
    },
  };
}
