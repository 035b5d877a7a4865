// A reading's value at the frontend: what it may cost as the backend serves it (JSON-escaped), which sizes the read
// bounds, and the short form the status page keeps and shows.
import { DEVICE_VALUE_MAX_BYTES } from '../lib/device-protocol.ts';

/**
 * JSON escapes a control character (one UTF-8 byte) as `\u0001`: six bytes. A legal value of 8 KiB can so take
 * 48 KiB of a response body, and a bound counted on raw bytes refuses a legal list.
 */
const ESCAPED_BYTES_PER_BYTE = 6;

/**
 * What one served item besides its value may take at most: the keys, numbers and times, a device id (256 ASCII
 * characters) and a session (256 characters, each up to six bytes escaped), with room for fields added later.
 */
const ITEM_OVERHEAD_BYTES = 4096;

/** The most bytes a list of `items` items, each carrying one reading's value, can take as the backend serves it. */
export function servedListMaxBytes(items: number): number {
  return items * (DEVICE_VALUE_MAX_BYTES * ESCAPED_BYTES_PER_BYTE + ITEM_OVERHEAD_BYTES) + ITEM_OVERHEAD_BYTES;
}

/** Characters of a value the status page keeps and shows; a longer one is cut to this, then `…`. */
export const SHOWN_VALUE_MAX = 120;

/** The value as the status page keeps it, and its length in characters when it was cut (undefined when whole). */
export function shortenValue(value: string): { value: string; cutFrom?: number } {
  if (value.length <= SHOWN_VALUE_MAX) return { value };
  const characters = Array.from(value); // by code point: a cut never splits a surrogate pair
  if (characters.length <= SHOWN_VALUE_MAX) return { value };
  return { value: `${characters.slice(0, SHOWN_VALUE_MAX).join('')}…`, cutFrom: characters.length };
}
