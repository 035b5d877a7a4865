// A reading as received → the document stored for it, or why the backend cannot store it as given.
import { DEVICE_VALUE_MAX_BYTES, type Reading } from '../lib/device-protocol.ts';
import type { ReadingDocument } from './reading-store.ts';
import { parseIsoTime } from './iso-time.ts';

/** Why a reading was refused, as a bounded label (metrics count refusals by it). */
export type RefusalCode = 'value_too_large' | 'timestamp_invalid';

export type Checked = { doc: ReadingDocument; bytes: number } | { refused: string; code: RefusalCode; bytes: number };

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
  return { doc: { deviceId, session, seq, timestamp, value, receivedAt }, bytes: bytes + valueBytes };
}
