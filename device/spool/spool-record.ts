// One record of the device's spool: a line `<crc32 of the JSON, 8 hex digits> <JSON>\n`, so that a torn or
// damaged line is recognised by its checksum and skipped instead of being believed.
import { crc32 } from 'node:zlib';
import {
  encodeReading,
  LOSS_REASONS,
  type LossReason,
  type Reading,
  type SeqRange,
} from '../../lib/device-protocol.ts';

/**
 * A reading as stored: `{"type":"reading","session":…,"reading":{"seq":…,"timestamp":…,"value":…}}`. The inner
 * object is the protocol's `Reading` JSON as sent (encodeReading's bytes), so a frame is built from the file's bytes
 * without re-encoding.
 */
interface ReadingRecord {
  type: 'reading';
  session: string;
  seq: number;
  /** Where the reading's JSON starts in the line, in bytes, and how long it is. */
  jsonOffset: number;
  jsonBytes: number;
}

/** Everything of `session` up to `seq` is forgotten: acknowledged (stored or refused) by the backend. */
interface AckRecord {
  type: 'ack';
  session: string;
  seq: number;
}

/**
 * `ranges` of `session` will never be sent, for `reason`: written where nothing else on disk shows the gap (the last
 * readings of a session whose writes failed), and carried forward when the segment that held it goes.
 */
interface LostRecord {
  type: 'lost';
  session: string;
  reason: LossReason;
  ranges: SeqRange[];
}

type SpoolRecord = ReadingRecord | AckRecord | LostRecord;

const CRC_HEX = 8;
const HEAD = CRC_HEX + 1; // the checksum and the space after it

export function encodeReadingRecord(
  session: string,
  reading: Reading,
): { line: Buffer; jsonOffset: number; jsonBytes: number } {
  const prefix = readingPrefix(session);
  const json = encodeReading(reading);
  return {
    line: encodeLine(`${prefix}${json}}`),
    jsonOffset: HEAD + Buffer.byteLength(prefix),
    jsonBytes: Buffer.byteLength(json),
  };
}

export function encodeAck(session: string, seq: number): Buffer {
  return encodeLine(JSON.stringify({ type: 'ack', session, seq }));
}

export function encodeLost(session: string, reason: LossReason, ranges: readonly SeqRange[]): Buffer {
  return encodeLine(JSON.stringify({ type: 'lost', session, reason, ranges }));
}

/** A line without its `\n`; undefined when its checksum, JSON or shape is wrong. */
export function decodeRecord(line: Buffer): SpoolRecord | undefined {
  if (line.length <= HEAD || line[CRC_HEX] !== 0x20) return undefined;
  const body = line.subarray(HEAD);
  if (line.toString('latin1', 0, CRC_HEX) !== crcHex(body)) return undefined;
  const text = body.toString('utf8');
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof m !== 'object' || m === null || typeof m.session !== 'string') return undefined;
  if (m.type === 'ack') return isSeq(m.seq) ? { type: 'ack', session: m.session, seq: m.seq } : undefined;
  if (m.type === 'lost') return decodeLost(m.session, m);
  if (m.type !== 'reading' || typeof m.reading !== 'object' || m.reading === null) return undefined;
  const r = m.reading as Record<string, unknown>;
  if (!isSeq(r.seq) || typeof r.timestamp !== 'string' || typeof r.value !== 'string') return undefined;
  // Only the layout encodeReadingRecord writes (the protocol's encoder, byte for byte): the reading's bytes are then
  // exactly the JSON a frame needs.
  const prefix = readingPrefix(m.session);
  const reading = { seq: r.seq, timestamp: r.timestamp, value: r.value };
  if (text !== `${prefix}${encodeReading(reading)}}`) return undefined;
  const jsonOffset = HEAD + Buffer.byteLength(prefix);
  return { type: 'reading', session: m.session, seq: r.seq, jsonOffset, jsonBytes: line.length - jsonOffset - 1 };
}

function decodeLost(session: string, m: Record<string, unknown>): LostRecord | undefined {
  const { reason, ranges } = m;
  if (!LOSS_REASONS.includes(reason as LossReason) || !Array.isArray(ranges) || ranges.length === 0) return undefined;
  const ok = ranges.every(
    (r: unknown) => Array.isArray(r) && r.length === 2 && isSeq(r[0]) && isSeq(r[1]) && r[0] <= r[1],
  );
  return ok ? { type: 'lost', session, reason: reason as LossReason, ranges: ranges as SeqRange[] } : undefined;
}

const readingPrefix = (session: string) => `{"type":"reading","session":${JSON.stringify(session)},"reading":`;
const isSeq = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 1;
const crcHex = (bytes: Buffer | string) => crc32(bytes).toString(16).padStart(CRC_HEX, '0');
const encodeLine = (json: string) => Buffer.from(`${crcHex(json)} ${json}\n`);
