// The keys of one unique index: a map per field of the key, from that field's value to the next field's map, the last
// one to the document holding the key. An insert looks its values up as they are, building no key string.
//
// Values are the same key as mongod's indexes say: numbers by value whatever their BSON type (1, 1.0 and Long 1 are one
// key; a Map's SameValueZero also makes 0 and -0 one, NaN and NaN one, as mongod does). Strings and numbers are Map
// keys as they are (a Map never confuses "1" with 1); every other type is keyed by its rendering in a map of its own.
import { ObjectId, type Document } from 'bson';
import { isNumber, typeRank, valueAt } from './values.ts';

type Part = string | number;

/** One field's values, each leading to the next field's level, or, for the last field, to the document. */
interface Level {
  /** Strings as they are, and every numeric type as a number. */
  plain: Map<Part, Level | Document>;
  /** Every other type, by rendered(): a string that never equals another value's rendering. */
  others: Map<string, Level | Document>;
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
  const root: Level = { plain: new Map(), others: new Map() };
  const last = paths.length - 1;

  return {
    slotOf(doc) {
      let level = root;
      for (let i = 0; i < last; i++) {
        const value = valueAt(doc, paths[i]!) ?? null;
        const map = mapOf(level, value);
        const part = partOf(value);
        let next = map.get(part) as Level | undefined;
        if (!next) map.set(part, (next = { plain: new Map(), others: new Map() }));
        level = next;
      }
      const value = valueAt(doc, paths[last]!) ?? null;
      return { map: mapOf(level, value), part: partOf(value) };
    },

    find(values) {
      let at: Level | Document | undefined = root;
      for (const value of values) {
        if (at === undefined) return undefined;
        at = mapOf(at as Level, value ?? null).get(partOf(value ?? null));
      }
      return at as Document | undefined;
    },
  };
}

// The ObjectId test comes first in both: it is every _id index's value, and isNumber() would try four types first.
function mapOf(level: Level, value: unknown): Map<Part, Level | Document> {
  const plain = typeof value === 'string' || (!(value instanceof ObjectId) && isNumber(value));
  return plain ? level.plain : (level.others as Map<Part, Level | Document>);
}

function partOf(value: unknown): Part {
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (value instanceof ObjectId) return value.toHexString();
  return isNumber(value) ? Number(value) : rendered(value);
}

// Every type but strings, numbers and ObjectIds, rendered self-delimited. An ObjectId (partOf) is its 24 hex digits:
// no rendering here is made of hex digits alone (each has a `:` or starts with `[`).
function rendered(value: unknown): string {
  const rank = typeRank(value);
  if (value instanceof Date) return `${rank}:${value.getTime()}`;
  return JSON.stringify([rank, value]);
}
