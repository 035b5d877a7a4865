// A stored reading: its document, its view in the API, and a reading as received → the document stored for it, or
// why the backend cannot store it as given.
import { DEVICE_VALUE_MAX_BYTES, type Reading } from '../../lib/device-protocol.ts';
import { parseIsoTime } from './iso-time.ts';

export const READINGS_COLLECTION = 'readings';

export interface ReadingDocument {
  deviceId: string;
  session: string;
  seq: number;
  /** When the device read the line. */
  timestamp: Date;
  value: string;
  /** When the backend received it. */
  receivedAt: Date;
}

/** A stored reading as the API returns it: the document's fields, dates as ISO strings, no `_id`. */
export interface ReadingView {
  deviceId: string;
  session: string;
  seq: number;
  timestamp: string;
  value: string;
  receivedAt: string;
}

/** Why a reading was refused, as a bounded label (metrics count refusals by it). */
export type RefusalCode = 'value_too_large' | 'timestamp_invalid' | 'timestamp_ahead';
/** Every reason a reading is refused: the refused counter's label values, a bounded set, never a device's text. */
export const REFUSAL_REASONS = ['value_too_large', 'timestamp_invalid', 'timestamp_ahead', 'over_bound'] as const;
/** A refusal's reason: a reading's own fault, or the socket over its bound of held readings. */
export type RefusalReason = RefusalCode | 'over_bound';

export type Checked = { doc: ReadingDocument; bytes: number } | { refused: string; code: RefusalCode; bytes: number };

// How far ahead of the backend's clock a reading's timestamp may be: device clocks drift, but a reading stamped
// further ahead would stay the device's "latest" until that time came.
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

// What a held reading costs besides its value and session: the document's other fields and our bookkeeping.
const OVERHEAD_BYTES = 200;

export function toDocument(deviceId: string, session: string, reading: Reading, receivedAt: Date): Checked {
  const { seq, value } = reading;
  const valueBytes = Buffer.byteLength(value, 'utf8');
  const bytes = OVERHEAD_BYTES + deviceId.length + session.length;
  if (valueBytes > DEVICE_VALUE_MAX_BYTES) {
    return { refused: `value of ${valueBytes} bytes, over ${DEVICE_VALUE_MAX_BYTES}`, code: 'value_too_large', bytes };
  }
  const timestamp = parseIsoTime(reading.timestamp);
  if (!timestamp)
    return { refused: 'timestamp is not an ISO 8601 date-time with a zone', code: 'timestamp_invalid', bytes };
  if (timestamp.getTime() > receivedAt.getTime() + FUTURE_TOLERANCE_MS) {
    return {
      refused: `timestamp is more than ${FUTURE_TOLERANCE_MS / 60_000} minutes ahead of the backend's clock`,
      code: 'timestamp_ahead',
      bytes,
    };
  }
  return { doc: { deviceId, session, seq, timestamp, value, receivedAt }, bytes: bytes + valueBytes };
}

export function toView({ deviceId, session, seq, timestamp, value, receivedAt }: ReadingDocument): ReadingView {
  const iso = (date: unknown) => (date instanceof Date ? date.toISOString() : String(date));
  return { deviceId, session, seq, timestamp: iso(timestamp), value, receivedAt: iso(receivedAt) };
}
