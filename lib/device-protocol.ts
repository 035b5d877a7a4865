// The messages on the device socket (device service → backend at DEVICE_SOCKET_PATH), shared by both ends.
//
// The backend's answer to the upgrade says the message rate it holds the socket to (DEVICE_RATE_HEADER) and the
// readings it takes in flight (DEVICE_IN_FLIGHT_HEADER); the device keeps under both, or under what older backends
// took when the answer says none.
//
// The device sends `hello` once per connection (naming its current session), then its unacknowledged readings
// in order, many to a `readings` frame (a single `reading` is accepted too). A reading names its own session:
// after a restart the device first resends what its previous session left unacknowledged, then the new ones.
//
// The backend writes readings to MongoDB and only then answers `ack` with the session and the highest sequence
// number of that session it has finished with: every reading of that session up to `seq` is stored (or was
// stored before: the key deviceId + session + seq is unique, so a resend never makes a second document) or was
// refused. The device forgets everything of that session up to `seq`. A reading the backend cannot store as
// given (a timestamp that is not a date, a value over DEVICE_VALUE_MAX_BYTES) is acknowledged as `refused`:
// the device drops it with a summed warning, so it is neither resent forever nor blocks the readings after it.
//
// While the database is away nothing is acknowledged; the device keeps its readings (on disk) and sends no more
// than the in-flight bound the answer says (DEVICE_UNACKED_IN_FLIGHT) ahead of the last ack. When the backend holds
// more than it may keep in memory it closes the socket with 1013 (try again later) and forgets its copies; the
// device reconnects with backoff and resends from its oldest unacknowledged reading.
//
// A sequence number the device assigned but will never send is declared in a `lost` message, with its reason:
// `evicted` (the full spool gave up its oldest readings) or `unwritten` (the spool write failed). The backend records
// the ranges per device, counts those of them it did not store, and acknowledges past them like stored readings, so
// a gap never stops acks. The device keeps declaring a range (on each socket) until an ack passes its end. Readings
// the backend refuses need no declaration: the ack names them.
//
// The hello and each frame may carry `backlog`: the readings the device holds unacknowledged when it builds the
// message (this frame's included), so that the backend can list it. It is optional: a device that never sends it
// still connects, and its backlog is listed as unknown.

export const DEVICE_SOCKET_PATH = '/api/device/socket';

/** The largest frame the backend accepts; a larger one closes the socket with 1009. */
export const DEVICE_MAX_PAYLOAD = 64 * 1024;

/**
 * Messages (and pings) a socket may send: beyond this token bucket the backend closes it with 1008. The backend
 * says its rate in the upgrade's answer (DEVICE_RATE_HEADER), and the device paces itself under what it was told.
 */
export const DEVICE_MESSAGE_RATE = { perSecond: 100, burst: 400 };

/**
 * The rate of a backend that does not say one: backends before DEVICE_RATE_HEADER took 50 a second, burst 200, so a
 * device keeps under that with them (and is never closed with 1008 by an older backend during an upgrade).
 */
export const DEVICE_MESSAGE_RATE_UNSAID = { perSecond: 50, burst: 200 };

/** The header of the backend's 101 answer that gives its message rate: `<per second>;burst=<burst>`. */
export const DEVICE_RATE_HEADER = 'device-message-rate';

/** The value of DEVICE_RATE_HEADER for `rate`. */
export function rateHeaderValue({ perSecond, burst }: Pace): string {
  return `${perSecond};burst=${burst}`;
}

/** The header line of the 101 answer that says `rate` (for a ws server's `headers` event). */
export function rateHeaderLine(rate: Pace): string {
  return `${DEVICE_RATE_HEADER}: ${rateHeaderValue(rate)}`;
}

/** The rate a DEVICE_RATE_HEADER value gives, or undefined for anything else (absent, garbled, out of bounds). */
export function parseRateHeader(value: string | undefined): Pace | undefined {
  const match = /^(\d{1,5});burst=(\d{1,6})$/.exec(value?.trim() ?? '');
  if (!match) return undefined;
  const [perSecond, burst] = [Number(match[1]), Number(match[2])];
  return perSecond >= 1 && burst >= 1 ? { perSecond, burst } : undefined;
}

/** How often the device's link pings the backend (each ping costs a token of DEVICE_MESSAGE_RATE there). */
export const DEVICE_PING_INTERVAL_MS = 1000;

/** Messages sent this far apart may still arrive together (a stalled route, a retransmission). */
export const DEVICE_ARRIVAL_JITTER_MS = 1000;

export interface Pace {
  perSecond: number;
  burst: number;
}

/**
 * The pace a sender keeps so that the backend's per-socket `limit` never trips: its rate is the limit's less the
 * link's pings; its burst is the limit's less what may arrive bunched with it (the frames and pings sent over one
 * `jitterMs`). Throws when nothing is left for frames.
 */
export function paceUnder(
  limit: Pace,
  { pingIntervalMs = DEVICE_PING_INTERVAL_MS, jitterMs = DEVICE_ARRIVAL_JITTER_MS } = {},
): Pace {
  const perSecond = limit.perSecond - Math.ceil(1000 / pingIntervalMs);
  const bunched = Math.ceil((perSecond * jitterMs) / 1000) + Math.ceil(jitterMs / pingIntervalMs);
  const burst = limit.burst - bunched;
  if (perSecond < 1 || burst < 1) {
    throw new RangeError(
      `no pace fits under ${limit.perSecond}/s, burst ${limit.burst} with a ping every ${pingIntervalMs} ms ` +
        `and ${jitterMs} ms of jitter`,
    );
  }
  return { perSecond, burst };
}

/**
 * Frames (each many readings, hellos and declarations too) the device service sends at most to a backend of this
 * release, pinging as shipped; to one that does not say its rate, paceUnder(DEVICE_MESSAGE_RATE_UNSAID).
 */
export const DEVICE_SEND_PACE = paceUnder(DEVICE_MESSAGE_RATE);

/**
 * The longest `deviceId` and `session` (characters): every stored reading carries both, and a query names the
 * device, so they are bounded like any key. A message with a longer (or an empty) one is malformed.
 */
export const DEVICE_ID_MAX_LENGTH = 256;

/** The one rule for a device id, wherever one is read (the hello, DEVICE_TOKENS, queries), worded for errors. */
export const DEVICE_ID_RULE = `letters, digits, '.', '_' and '-', 1 to ${DEVICE_ID_MAX_LENGTH} characters`;

/** True for a device id under DEVICE_ID_RULE: ASCII letters, digits, `.`, `_`, `-`, at most DEVICE_ID_MAX_LENGTH. */
export function isDeviceId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= DEVICE_ID_MAX_LENGTH && /^[A-Za-z0-9._-]+$/.test(value);
}

/** The longest reading value (UTF-8 bytes) the backend stores; a longer one is refused. */
export const DEVICE_VALUE_MAX_BYTES = 8 * 1024;

/**
 * Readings a device sends ahead of the backend's last ack at most; the backend holds up to twice this. The backend
 * says it in the upgrade's answer (DEVICE_IN_FLIGHT_HEADER): a backlog drains in round trips of this many readings.
 */
export const DEVICE_UNACKED_IN_FLIGHT = 4000;

/**
 * The bound of a backend that does not say one: backends before DEVICE_IN_FLIGHT_HEADER held at most 4000 readings,
 * twice this, and closed a socket past that with 1013.
 */
export const DEVICE_UNACKED_IN_FLIGHT_UNSAID = 2000;

/** The header of the backend's 101 answer that gives the readings it takes in flight: a whole number. */
export const DEVICE_IN_FLIGHT_HEADER = 'device-in-flight';

/** The in-flight bound a DEVICE_IN_FLIGHT_HEADER value gives, or undefined for anything else. */
export function parseInFlightHeader(value: string | undefined): number | undefined {
  const match = /^\d{1,7}$/.exec(value?.trim() ?? '');
  const count = match ? Number(match[0]) : 0;
  return count >= 1 ? count : undefined;
}

/** The header line of the 101 answer that says the in-flight bound `inFlight`. */
export function inFlightHeaderLine(inFlight: number): string {
  return `${DEVICE_IN_FLIGHT_HEADER}: ${inFlight}`;
}

/** The header lines of the 101 answer (for a ws server's `headers` event): the rate and the in-flight bound. */
export function answerHeaderLines(rate: Pace, inFlight = DEVICE_UNACKED_IN_FLIGHT): string[] {
  return [rateHeaderLine(rate), inFlightHeaderLine(inFlight)];
}

/** Either side closes with this code when its process shuts down. */
export const CLOSE_GOING_AWAY = 1001;

/** The backend closes a socket with this code when the device broke a rule (no hello, a refused identity, its rate). */
export const CLOSE_POLICY = 1008;

/** The backend closes a socket with this code when it drops what it held for it: reconnect and resend. */
export const CLOSE_TRY_AGAIN_LATER = 1013;

export interface HelloMessage {
  type: 'hello';
  deviceId: string;
  /** Changes each time the device service starts; sequence numbers restart at 1 per session. */
  session: string;
  /** Readings the device holds unacknowledged (a whole number, 0 or more); omitted by devices that do not say. */
  backlog?: number;
}

/** One reading as carried in a `readings` frame. */
export interface Reading {
  seq: number;
  /** ISO 8601 UTC time the line was read from the serial port. */
  timestamp: string;
  /** The line as read, without its line ending. */
  value: string;
}

export interface ReadingMessage extends Reading {
  type: 'reading';
  deviceId: string;
  session: string;
  backlog?: number;
}

/** Several readings of one session, in ascending `seq` order, in one frame under DEVICE_MAX_PAYLOAD. */
export interface ReadingsMessage {
  type: 'readings';
  deviceId: string;
  session: string;
  /** The device's unacknowledged readings when it built this frame, this frame's included. */
  backlog?: number;
  readings: Reading[];
}

export interface AckMessage {
  type: 'ack';
  session: string;
  /** Every reading of `session` up to and including this one is stored or refused. */
  seq: number;
  /** Sequence numbers (≤ seq) the backend refused to store as given; omitted when none. */
  refused?: number[];
}

/** Why a device will never send a reading it numbered. */
export const LOSS_REASONS = ['evicted', 'unwritten'] as const;
export type LossReason = (typeof LOSS_REASONS)[number];

/** The most ranges one `lost` message carries (a longer list goes in several messages). */
export const LOST_RANGES_MAX = 1000;

/**
 * The highest sequence number a session can reach: a device numbering 1,000 readings a second would need 34 years. A
 * `lost` range past it is refused, so that no declaration claims numbers no spool could ever have held.
 */
export const DEVICE_SEQ_MAX = 2 ** 40;

/**
 * The most sequence numbers one declared range may hold (50 days of 1,000 readings a second); a larger one is
 * refused. With DEVICE_SEQ_MAX it bounds what one message can add to a loss count: 1000 × 2^32, far under 2^53.
 */
export const LOST_RANGE_SPAN_MAX = 2 ** 32;

/** Inclusive `[from, to]` sequence numbers of one session. */
export type SeqRange = [from: number, to: number];

/** Readings of `session` the device numbered but will never send, for one reason, in ascending, disjoint ranges. */
export interface LostMessage {
  type: 'lost';
  deviceId: string;
  session: string;
  reason: LossReason;
  ranges: SeqRange[];
  backlog?: number;
}

export type DeviceMessage = HelloMessage | ReadingMessage | ReadingsMessage | LostMessage;

/** The `hello` frame a device sends first on each socket (and again to report a changed `backlog`). */
export function helloFrame(deviceId: string, session: string, backlog?: number): string {
  return JSON.stringify({ type: 'hello', deviceId, session, backlog } satisfies HelloMessage);
}

/** A `lost` message (ranges ascending and disjoint, at most LOST_RANGES_MAX). */
export function lostFrame(head: FrameHead, reason: LossReason, ranges: readonly SeqRange[]): string {
  const { deviceId, session, backlog } = head;
  return JSON.stringify({
    type: 'lost',
    deviceId,
    session,
    backlog,
    reason,
    ranges: [...ranges],
  } satisfies LostMessage);
}

/** One reading's JSON as a frame carries it: these keys in this order (the device's spool stores these bytes). */
export function encodeReading({ seq, timestamp, value }: Reading): string {
  return JSON.stringify({ seq, timestamp, value });
}

/** What a `readings` frame says besides its readings: whose, which session, and the device's backlog if known. */
export interface FrameHead {
  deviceId: string;
  session: string;
  backlog?: number;
}

/** A `readings` frame from its readings' JSON (encodeReading's), in ascending `seq`. */
export function readingsFrame(head: FrameHead, readings: readonly string[]): string {
  return `${framePrefix(head)}${readings.join(',')}${FRAME_SUFFIX}`;
}

/**
 * The UTF-8 bytes a `readings` frame with `head` leaves for its readings (their JSON and the commas between them)
 * when the whole frame may take `frameBytes`: readings that fit make a frame of at most that size.
 */
export function readingsRoom(head: FrameHead, frameBytes: number): number {
  return frameBytes - Buffer.byteLength(framePrefix(head)) - FRAME_SUFFIX.length;
}

const framePrefix = ({ deviceId, session, backlog }: FrameHead) =>
  `{"type":"readings","deviceId":${JSON.stringify(deviceId)},"session":${JSON.stringify(session)},` +
  `${backlog === undefined ? '' : `"backlog":${JSON.stringify(backlog)},`}"readings":[`;
const FRAME_SUFFIX = ']}';

/** A device message, or the one rule its text breaks (a line for the malformed-message warning). */
export type DeviceMessageCheck = { message: DeviceMessage } | { reason: string };

/** Parses a device message; returns undefined for anything that is not one (the caller logs and ignores it). */
export function parseDeviceMessage(data: string): DeviceMessage | undefined {
  const checked = checkDeviceMessage(data);
  return 'message' in checked ? checked.message : undefined;
}

/** Parses a device message strictly, saying which rule it breaks when it is not one. */
export function checkDeviceMessage(data: string): DeviceMessageCheck {
  const m = parseObject(data);
  if (!m) return { reason: 'not a JSON object' };
  if (!isDeviceId(m.deviceId)) return { reason: `deviceId is not ${DEVICE_ID_RULE}` };
  if (!isName(m.session)) return { reason: `session is not 1 to ${DEVICE_ID_MAX_LENGTH} characters` };
  // Absent is allowed (older devices); anything but a whole number from 0 makes the message malformed.
  if (m.backlog !== undefined && !isCount(m.backlog)) return { reason: 'backlog is not a whole number from 0' };
  const head = { deviceId: m.deviceId, session: m.session, ...(m.backlog === undefined ? {} : { backlog: m.backlog }) };
  if (m.type === 'hello') return { message: { type: 'hello', ...head } };
  if (m.type === 'reading') {
    const reading = toReading(m);
    return typeof reading === 'string' ? { reason: reading } : { message: { type: 'reading', ...head, ...reading } };
  }
  if (m.type === 'lost') {
    const lost = toLost(m);
    return typeof lost === 'string' ? { reason: lost } : { message: { type: 'lost', ...head, ...lost } };
  }
  if (m.type !== 'readings') return { reason: 'type is not hello, reading, readings or lost' };
  if (!Array.isArray(m.readings) || m.readings.length === 0) return { reason: 'readings is not a non-empty array' };
  const readings: Reading[] = [];
  for (const [i, item] of (m.readings as unknown[]).entries()) {
    const reading =
      typeof item === 'object' && item !== null ? toReading(item as Record<string, unknown>) : 'not an object';
    if (typeof reading === 'string') return { reason: `readings[${i}]: ${reading}` };
    // Ascending and without repeats, so that an ack of the last one may speak for all of them.
    if (i > 0 && reading.seq <= readings[i - 1]!.seq) return { reason: `readings[${i}]: seq not above the one before` };
    readings.push(reading);
  }
  return { message: { type: 'readings', ...head, readings } };
}

/** A `reading` or `readings` message as the list of readings it carries (a `lost` message carries none). */
export function readingsOf(message: ReadingMessage | ReadingsMessage | LostMessage): Reading[] {
  if (message.type === 'lost') return [];
  if (message.type === 'readings') return message.readings;
  const { seq, timestamp, value } = message;
  return [{ seq, timestamp, value }];
}

export function parseAck(data: string): AckMessage | undefined {
  const m = parseObject(data);
  if (m?.type !== 'ack' || typeof m.session !== 'string' || !Number.isSafeInteger(m.seq)) return undefined;
  const ack: AckMessage = { type: 'ack', session: m.session, seq: m.seq as number };
  if (m.refused !== undefined) {
    if (!Array.isArray(m.refused) || !m.refused.every((seq) => Number.isSafeInteger(seq))) return undefined;
    if (m.refused.length > 0) ack.refused = m.refused as number[];
  }
  return ack;
}

// The timestamp is checked only for being a string here: whether it is a date is the backend's call (it refuses
// the reading, and says so in the ack), so a bad clock on one reading never costs the socket.
function toReading(m: Record<string, unknown>): Reading | string {
  if (!Number.isSafeInteger(m.seq) || (m.seq as number) < 1) return 'seq is not a whole number from 1';
  if (typeof m.timestamp !== 'string') return 'timestamp is not a string';
  if (typeof m.value !== 'string') return 'value is not a string';
  return { seq: m.seq as number, timestamp: m.timestamp, value: m.value };
}

function toLost(m: Record<string, unknown>): Pick<LostMessage, 'reason' | 'ranges'> | string {
  if (!LOSS_REASONS.includes(m.reason as LossReason)) return `reason is not ${LOSS_REASONS.join(' or ')}`;
  if (!Array.isArray(m.ranges) || m.ranges.length === 0 || m.ranges.length > LOST_RANGES_MAX) {
    return `ranges is not an array of 1 to ${LOST_RANGES_MAX} ranges`;
  }
  const ranges: SeqRange[] = [];
  for (const [i, item] of (m.ranges as unknown[]).entries()) {
    if (!Array.isArray(item) || item.length !== 2 || !item.every((n) => Number.isSafeInteger(n) && n >= 1)) {
      return `ranges[${i}] is not [from, to] of whole numbers from 1`;
    }
    const [from, to] = item as SeqRange;
    if (from > to) return `ranges[${i}]: from is above to`;
    if (to > DEVICE_SEQ_MAX) return `ranges[${i}]: past the highest seq a session reaches (2^40)`;
    if (to - from + 1 > LOST_RANGE_SPAN_MAX) return `ranges[${i}]: holds more than 2^32 numbers`;
    // Ascending and disjoint, so that the backend counts each sequence number once.
    if (i > 0 && from <= ranges[i - 1]![1]) return `ranges[${i}]: not above the range before`;
    ranges.push([from, to]);
  }
  return { reason: m.reason as LossReason, ranges };
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= DEVICE_ID_MAX_LENGTH;
}

function parseObject(data: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(data);
    // `null` is an object to typeof: `?? undefined` turns it away with the other non-objects.
    if (typeof value === 'object' && !Array.isArray(value)) {
      return (value as Record<string, unknown> | null) ?? undefined;
    }
  } catch {
    // Not JSON at all: the same answer as JSON that is not an object, below.
  }
  return undefined;
}
