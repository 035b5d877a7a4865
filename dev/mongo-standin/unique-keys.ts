// The keys of one unique index: a map per field of the key, from that field's value to the next field's map, the last
// one to the document holding the key. An insert looks its values up as they are, building no key string.
//
// Values are the same key as mongod's indexes say: numbers by value whatever their BSON type (1, 1.0 and Long 1 are one
// key; a Map's SameValueZero also makes 0 and -0 one, NaN and NaN one, as mongod does). Strings and numbers are Map
// keys as they are (a Map never confuses "1" with 1); ObjectIds and every other type have maps of their own.
import { ObjectId, type Document } from 'bson';
import { isNumber, typeRank, valueAt } from './values.ts';

type Part = string | number;

/** One field's values, each leading to the next field's level, or, for the last field, to the document. */
interface Level {
  /** Strings as they are, and every numeric type as a number. */
  plain: Map<Part, Level | Document>;
  /** ObjectIds by their first six bytes, then by their last six, as numbers: hashing hex strings cost twice as much. */
  ids: Map<number, Map<Part, Level | Document>>;
  /** Every other type, by rendered(): a string that never equals another value's rendering. */
  others: Map<Part, Level | Document>;
}

/** Where one key is held: the last field's map and the key there. `map.get(part)` is the document holding it. */
export interface KeySlot {
  map: Map<Part, Level | Document>;
  part: Part;
}

export interface UniqueKeys {
  /** Where `doc`'s key goes (a missing field is null), making the levels on the way. */
  slotOf(doc: Document): KeySlot;
  /** The document holding the key whose fields (in the index's order) have `values`, if one does. */
  find(values: readonly unknown[]): Document | undefined;
}

export function createUniqueKeys(paths: readonly string[]): UniqueKeys {
  const root = level();
  const last = paths.length - 1;

  return {
    slotOf(doc) {
      let at = root;
      for (let i = 0; i < last; i++) {
        const { map, part } = locate(at, valueAt(doc, paths[i]!) ?? null, true)!;
        let next = map.get(part) as Level | undefined;
        if (!next) map.set(part, (next = level()));
        at = next;
      }
      return locate(at, valueAt(doc, paths[last]!) ?? null, true)!;
    },

    find(values) {
      let at: Level | Document | undefined = root;
      for (const value of values) {
        const slot: KeySlot | undefined = at && locate(at as Level, value ?? null, false);
        at = slot ? slot.map.get(slot.part) : undefined;
      }
      return at as Document | undefined;
    },
  };
}

const level = (): Level => ({ plain: new Map(), ids: new Map(), others: new Map() });

/** Where `value` goes in `level`; for an ObjectId whose first six bytes are new there, undefined unless `make`. */
function locate(level: Level, value: unknown, make: boolean): KeySlot | undefined {
  if (typeof value === 'string' || typeof value === 'number') return { map: level.plain, part: value };
  // Before isNumber(), which would try four types first: an ObjectId is every _id index's value.
  if (value instanceof ObjectId) {
    const bytes = value.id;
    const high = sixBytes(bytes, 0);
    let map = level.ids.get(high);
    if (!map && !make) return undefined;
    if (!map) level.ids.set(high, (map = new Map()));
    return { map, part: sixBytes(bytes, 6) };
  }
  if (isNumber(value)) return { map: level.plain, part: Number(value) };
  return { map: level.others, part: rendered(value) };
}

/** Six bytes from `at`, big-endian, as a whole number (below 2 ** 48, so exact). */
function sixBytes(bytes: Uint8Array, at: number): number {
  return (
    ((bytes[at]! << 16) | (bytes[at + 1]! << 8) | bytes[at + 2]!) * 0x1000000 +
    ((bytes[at + 3]! << 16) | (bytes[at + 4]! << 8) | bytes[at + 5]!)
  );
}

// Every type but strings, numbers and ObjectIds, rendered self-delimited (`rank:text` or a JSON array).
function rendered(value: unknown): string {
  const rank = typeRank(value);
  if (value instanceof Date) return `${rank}:${value.getTime()}`;
  return JSON.stringify([rank, value]);
}
