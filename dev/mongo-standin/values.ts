// How the stand-in compares and prints BSON values: mongod's cross-type order for sorts and ranges, and the
// shell-like rendering mongod uses in an E11000 message (`{ deviceId: "d1", seq: 3 }`).
import { Binary, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp, type Document } from 'bson';

/** mongod's canonical type order: a sort over mixed types puts numbers before strings before objects, and so on. */
export function typeRank(value: unknown): number {
  // The primitives first, by typeof: filters and sorts ask this for every document.
  switch (typeof value) {
    case 'number':
      return 3;
    case 'string':
      return 4;
    case 'boolean':
      return 9;
    case 'undefined':
      return 2;
  }
  if (value === null) return 2;
  if (value instanceof Date) return 10;
  if (value instanceof MinKey) return 1;
  if (isNumber(value)) return 3;
  if (Array.isArray(value)) return 6;
  if (value instanceof Binary || Buffer.isBuffer(value)) return 7;
  if (value instanceof ObjectId) return 8;
  if (value instanceof Timestamp) return 11;
  if (value instanceof RegExp) return 12;
  if (value instanceof MaxKey) return 13;
  return 5; // an embedded document
}

export function isNumber(value: unknown): boolean {
  return (
    typeof value === 'number' ||
    value instanceof Int32 ||
    value instanceof Double ||
    Long.isLong(value) ||
    value instanceof Decimal128
  );
}

/** A number of any BSON numeric type as a JavaScript number. */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (Long.isLong(value)) return (value as Long).toNumber();
  return Number(String((value as { valueOf(): unknown }).valueOf()));
}

/** Negative, zero or positive, in mongod's order (numbers by value whatever their BSON type). */
export function compareValues(a: unknown, b: unknown): number {
  // The common pairs first, without ranking their types.
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return Math.sign(a - b);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  const rank = typeRank(a) - typeRank(b);
  if (rank !== 0) return rank;
  if (isNumber(a)) return Math.sign(toNumber(a) - toNumber(b));
  if (typeof a === 'string') return a < (b as string) ? -1 : a > (b as string) ? 1 : 0;
  if (a instanceof Date) return Math.sign(a.getTime() - (b as Date).getTime());
  if (a instanceof ObjectId) return a.toHexString().localeCompare((b as ObjectId).toHexString());
  if (typeof a === 'boolean') return Number(a) - Number(b);
  if (Array.isArray(a)) return compareLists(a, b as unknown[]);
  if (typeRank(a) === 5) return compareDocuments(a as Document, b as Document);
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function compareLists(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareValues(a[i], b[i]);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

// Embedded documents compare field by field: name first, then value, as mongod does.
function compareDocuments(a: Document, b: Document): number {
  const left = Object.entries(a);
  const right = Object.entries(b);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const [ka, va] = left[i]!;
    const [kb, vb] = right[i]!;
    const order = compareValues(va, vb) || (ka < kb ? -1 : ka > kb ? 1 : 0);
    if (order !== 0) return order;
  }
  return left.length - right.length;
}

/** Reads the value at a dotted path, the path split once: filters and sorts read it per document, many times. */
export function getter(path: string): (doc: Document) => unknown {
  if (!path.includes('.')) return (doc) => doc[path];
  return (doc) => valueAt(doc, path);
}

/** The value at a dotted path (`a.b`), or undefined. */
export function valueAt(doc: Document, path: string): unknown {
  if (!path.includes('.')) return doc[path]; // most paths: no array to split per document
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Document)[part];
  }
  return value;
}

/** A value as mongod prints it in error messages: `"text"`, `3`, `1.5`, `ObjectId('…')`, `new Date(…)`, `{ a: 1 }`. */
export function renderValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return String(value);
  if (value instanceof Double) return Number.isInteger(value.value) ? `${value.value}.0` : String(value.value);
  if (value instanceof Int32 || Long.isLong(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  if (value instanceof ObjectId) return `ObjectId('${value.toHexString()}')`;
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (Array.isArray(value)) return `[ ${value.map(renderValue).join(', ')} ]`;
  if (typeRank(value) === 5) return renderKey(value as Document);
  return String(value);
}

/** `{ deviceId: "d1", seq: 3 }`: mongod's rendering of a document (an index key, say). */
export function renderKey(doc: Document): string {
  const fields = Object.entries(doc).map(([name, value]) => `${name}: ${renderValue(value)}`);
  return fields.length === 0 ? '{}' : `{ ${fields.join(', ')} }`;
}
