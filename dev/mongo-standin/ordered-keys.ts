// One index's documents in key order, so that a find pinning the index's leading fields reads only its part of the
// collection, as mongod's index scan does, instead of testing every document. The documents are kept in buckets, one
// per value of every field but the last (`deviceId` and `session` of `{ deviceId: 1, session: 1, seq: 1 }`), each
// bucket sorted by the last field, then by natural order: a bucket read forwards or backwards (ties forwards) is
// exactly what the stable sort of its documents by that field gives. The documents a scan hands out are candidates:
// the filter still tests each, so a bucket or a bound wider than the filter costs time, never a wrong answer.
import type { Document } from 'bson';
import { compareValues, isNumber, toNumber, valueAt } from './values.ts';

interface Entry {
  value: unknown;
  /** The document's place in natural order (insertion order; a replaced document keeps its place). */
  at: number;
  doc: Document;
}

/**
 * A bucket's part that a filter's bounds on the last field leave, and the order a sort asks for, if the index has it.
 */
export interface IndexScan {
  size: number;
  /** The candidates, in the sort's order when `inOrder`; otherwise in the index's. */
  docs(): Iterable<Document>;
  /** The candidates in natural order. */
  natural(): Document[];
  inOrder: boolean;
}

export interface OrderedKeys {
  /** Keeps `doc`, `at` its place in natural order (a replacement takes the place of the document it replaces). */
  add(doc: Document, at: number): void;
  /** Forgets `doc`; returns its place in natural order, if this index keeps it. */
  remove(doc: Document): number | undefined;
  /** The candidates for `filter` when it pins every field but the last to one value; otherwise undefined. */
  scan(filter: Document, pinned: ReadonlyMap<string, unknown>, sort: Document | undefined): IndexScan | undefined;
}

export function createOrderedKeys(paths: readonly string[]): OrderedKeys {
  const leading = paths.slice(0, -1);
  const last = paths.at(-1)!;
  const buckets = new Map<string, Entry[]>();
  // A document whose leading values this index cannot key (an array, an embedded document…) stops its use: every
  // find scans the collection again, as before the index, rather than miss that document.
  let usable = true;

  /** The bucket of the leading values that `read` gives, or undefined for one this index does not key. */
  const keyOf = (read: (path: string) => unknown) => {
    let key = '';
    for (const path of leading) {
      const part = keyPart(read(path));
      if (part === undefined) return undefined;
      key += part;
    }
    return key;
  };

  return {
    add(doc, at) {
      const key = usable ? keyOf((path) => valueAt(doc, path)) : undefined;
      if (key === undefined) return void ((usable = false), buckets.clear());
      const entry = { value: valueAt(doc, last), at, doc };
      let bucket = buckets.get(key);
      if (!bucket) buckets.set(key, (bucket = []));
      // Most documents come in order (a device's next seq): then this is the end, found in one comparison.
      const position = boundAfter(bucket, entry);
      if (position === bucket.length) bucket.push(entry);
      else bucket.splice(position, 0, entry);
    },

    remove(doc) {
      const key = usable ? keyOf((path) => valueAt(doc, path)) : undefined;
      const bucket = key === undefined ? undefined : buckets.get(key);
      if (!bucket) return undefined;
      // Among the entries of its value (one, unless the index is not unique), the one holding this document.
      const value = valueAt(doc, last);
      let position = firstAtLeast(bucket, value);
      while (position < bucket.length && bucket[position]!.doc !== doc) position += 1;
      const [entry] = bucket.splice(position, 1);
      if (bucket.length === 0) buckets.delete(key!);
      return entry?.at;
    },

    scan(filter, pinned, sort) {
      if (!usable || !leading.every((path) => pinned.has(path))) return undefined;
      const key = keyOf((path) => pinned.get(path));
      if (key === undefined) return undefined;
      const bucket = buckets.get(key) ?? [];
      const { low, high } = boundsOf(filter[last]);
      const from = low === undefined ? 0 : firstAtLeast(bucket, low);
      const to = high === undefined ? bucket.length : firstAbove(bucket, high);
      const part = bucket.slice(from, Math.max(from, to));
      const sign = sortSign(sort, leading, last);
      return {
        size: part.length,
        inOrder: sign !== undefined,
        docs: () => (sign === -1 ? descending(part) : part.map((entry) => entry.doc)),
        natural: () => [...part].sort((a, b) => a.at - b.at).map((entry) => entry.doc),
      };
    },
  };
}

/**
 * One leading value's part of a bucket's key, self-delimiting (a string's length first; a number ends at `;`), or
 * undefined for a value this index does not key (only strings, numbers and null are).
 */
function keyPart(value: unknown): string | undefined {
  if (typeof value === 'string') return `s${value.length}:${value}`;
  // A missing field and null are one key, as in mongod's indexes (and its equality: { a: null } finds both).
  if (value === undefined || value === null) return 'z';
  if (isNumber(value)) return `n${String(toNumber(value))};`;
  return undefined;
}

/** The loosest bounds a condition sets on the last field: never narrower than what it matches. */
function boundsOf(condition: unknown): { low?: unknown; high?: unknown } {
  // null also matches a missing field, which sorts apart from it: no bounds, the whole bucket.
  if (condition === undefined || condition === null) return {};
  if (typeof condition !== 'object' || isNumber(condition) || condition instanceof Date) {
    return { low: condition, high: condition };
  }
  const operators = condition as Document;
  if (!Object.keys(operators).every((key) => key.startsWith('$'))) return {};
  const low = operators.$eq ?? operators.$gte ?? operators.$gt;
  const high = operators.$eq ?? operators.$lte ?? operators.$lt;
  return { low: low ?? undefined, high: high ?? undefined };
}

/** 1 or -1 when `sort` orders by the last field alone (the leading ones are one value in a bucket); else undefined. */
function sortSign(sort: Document | undefined, leading: readonly string[], last: string): 1 | -1 | undefined {
  const keys = Object.entries(sort ?? {}).filter(([path]) => !leading.includes(path));
  if (keys.length !== 1 || keys[0]![0] !== last) return undefined;
  const sign = Number(keys[0]![1]);
  return sign === 1 || sign === -1 ? sign : undefined;
}

/** The documents from the last to the first, each run of equal values forwards: the stable sort's descending order. */
function* descending(part: readonly Entry[]): Generator<Document> {
  let end = part.length;
  while (end > 0) {
    let start = end - 1;
    while (start > 0 && compareValues(part[start - 1]!.value, part[end - 1]!.value) === 0) start -= 1;
    for (let i = start; i < end; i++) yield part[i]!.doc;
    end = start;
  }
}

/** Where `entry` goes: after every entry with a lower value, or an equal one earlier in natural order. */
function boundAfter(bucket: readonly Entry[], entry: Entry): number {
  const before = (other: Entry) => (compareValues(other.value, entry.value) || other.at - entry.at) <= 0;
  if (bucket.length === 0 || before(bucket.at(-1)!)) return bucket.length;
  return search(bucket, before);
}

const firstAtLeast = (bucket: readonly Entry[], low: unknown) =>
  search(bucket, (entry) => compareValues(entry.value, low) < 0);

const firstAbove = (bucket: readonly Entry[], high: unknown) =>
  search(bucket, (entry) => compareValues(entry.value, high) <= 0);

/** The first position whose entry is not `before` (every `before` entry comes first). */
function search(bucket: readonly Entry[], before: (entry: Entry) => boolean): number {
  let low = 0;
  let high = bucket.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (before(bucket[middle]!)) low = middle + 1;
    else high = middle;
  }
  return low;
}
