// The stand-in's data: databases of collections of documents, held in this process's memory only (gone when it
// stops), with mongod's `_id_` index and unique indexes enforced on insert the way mongod words the refusal, and every
// other index kept in key order (ordered-keys.ts), so that a find pinning an index's leading fields reads its part of
// the collection only, as mongod would.
import { ObjectId, type Document } from 'bson';
import { CommandError } from './command-error.ts';
import { createOrderedKeys, type IndexScan, type OrderedKeys } from './ordered-keys.ts';
import { equalityFields } from './query.ts';
import { createUniqueKeys, type KeySlot, type UniqueKeys } from './unique-keys.ts';
import { renderKey, valueAt } from './values.ts';

export interface IndexSpec {
  name: string;
  key: Document;
  unique: boolean;
}

export interface Collection {
  readonly ns: string;
  /** In insertion order: mongod's natural order for a collection scan without a sort. */
  readonly docs: Document[];
  readonly indexes: IndexSpec[];
}

export interface WriteError extends Refusal {
  index: number;
}

/** Why a document was not stored: a key a unique index already holds. */
export interface Refusal {
  code: number;
  errmsg: string;
  keyPattern: Document;
  keyValue: Document;
}

interface StoredCollection extends Collection {
  docs: Document[];
  indexes: IndexSpec[];
  /** Per unique index (by name), each key present and the document holding it. */
  keys: Map<string, UniqueKeys>;
  /** Per index but `_id_` (by name), its documents in key order. */
  ordered: Map<string, OrderedKeys>;
}

export interface Memory {
  collection(db: string, name: string): Collection | undefined;
  /** Inserts in order; `ordered` stops at the first refusal. Returns how many went in and why the rest did not. */
  insert(db: string, name: string, docs: Document[], ordered: boolean): { n: number; writeErrors: WriteError[] };
  /**
   * The documents that may match `filter`, in natural order: the one document holding a key when the filter pins a
   * unique index's fields, so a lookup by key costs no scan; else the smallest part an index's order gives (its
   * leading fields pinned, bounds on the next); else the whole collection.
   */
  candidates(db: string, name: string, filter: Document | undefined): readonly Document[];
  /** The documents that may match `filter` already in `sort`'s order, read from an index, when one gives that order. */
  inOrder(db: string, name: string, filter: Document | undefined, sort: Document): Iterable<Document> | undefined;
  /** Puts `next` where the stored `current` is, or refuses it (a unique key) and leaves `current` as it was. */
  replace(db: string, name: string, current: Document, next: Document): Refusal | undefined;
  /** Takes the stored `doc` out of its collection. */
  remove(db: string, name: string, doc: Document): void;
  /** Adds indexes (all or none); returns the index counts before and after, and whether the collection was new. */
  createIndexes(db: string, name: string, specs: IndexSpec[]): { before: number; after: number; created: boolean };
  drop(db: string, name: string): number | undefined;
  dropDatabase(db: string): void;
}

const ID_INDEX: IndexSpec = { name: '_id_', key: { _id: 1 }, unique: true };

export function createMemory(): Memory {
  const collections = new Map<string, StoredCollection>();
  // The next inserted document's place in natural order (ordered-keys.ts keeps each document's): an index's
  // candidates are put back in it, and its ties kept in it. Past every place a collection's documents hold.
  let nextPlace = 0;

  function ensure(db: string, name: string): { collection: StoredCollection; created: boolean } {
    const ns = `${db}.${name}`;
    const existing = collections.get(ns);
    if (existing) return { collection: existing, created: false };
    const collection: StoredCollection = {
      ns,
      docs: [],
      indexes: [ID_INDEX],
      keys: new Map([['_id_', keysFor(ID_INDEX)]]),
      ordered: new Map(),
    };
    collections.set(ns, collection);
    return { collection, created: true };
  }

  /**
   * Where `doc`'s key goes in each unique index, or the refusal for the first one it would duplicate. The slots are
   * found once and kept for `keep()`: finding them is most of what an insert costs here.
   */
  function keysOf(collection: StoredCollection, doc: Document): KeySlot[] | Refusal {
    const slots: KeySlot[] = [];
    for (const index of collection.indexes) {
      if (!index.unique) continue;
      const slot = collection.keys.get(index.name)!.slotOf(doc);
      if (slot.map.has(slot.part)) {
        const keyValue = keyOf(index, doc);
        const errmsg = duplicateMessage(collection.ns, index, keyValue);
        return { code: 11000, errmsg, keyPattern: index.key, keyValue };
      }
      slots.push(slot);
    }
    return slots;
  }

  /** `doc`'s keys in every unique index, duplicates or not (for taking it out). */
  function keysHeld(collection: StoredCollection, doc: Document): KeySlot[] {
    return collection.indexes
      .filter((index) => index.unique)
      .map((index) => collection.keys.get(index.name)!.slotOf(doc));
  }

  return {
    collection: (db, name) => collections.get(`${db}.${name}`),

    insert(db, name, docs, ordered) {
      const { collection } = ensure(db, name);
      const writeErrors: WriteError[] = [];
      let n = 0;
      for (const [position, given] of docs.entries()) {
        const doc = idFirst(given);
        const keys = keysOf(collection, doc);
        if (!Array.isArray(keys)) {
          writeErrors.push({ index: position, ...keys });
          if (ordered) break;
          continue;
        }
        keep(doc, keys, true);
        collection.docs.push(doc);
        for (const ordered of collection.ordered.values()) ordered.add(doc, nextPlace);
        nextPlace += 1;
        n += 1;
      }
      return { n, writeErrors };
    },

    candidates(db, name, filter) {
      const collection = collections.get(`${db}.${name}`);
      if (!collection) return [];
      const values = new Map(equalityFields(filter));
      for (const index of collection.indexes) {
        const paths = Object.keys(index.key);
        if (!index.unique || !paths.every((path) => values.has(path))) continue;
        const doc = collection.keys.get(index.name)!.find(paths.map((path) => values.get(path)));
        return doc ? [doc] : [];
      }
      const scan = bestScan(collection, filter, values, undefined);
      return listedKeys(collection, filter) ?? scan?.natural() ?? collection.docs;
    },

    inOrder(db, name, filter, sort) {
      const collection = collections.get(`${db}.${name}`);
      const scan = collection && bestScan(collection, filter, new Map(equalityFields(filter)), sort);
      return scan?.inOrder ? scan.docs() : undefined;
    },

    replace(db, name, current, next) {
      const { collection } = ensure(db, name);
      const at = collection.docs.indexOf(current);
      if (at < 0) throw new Error('replace: the document is not stored in this collection');
      const held = keysHeld(collection, current);
      keep(current, held, false);
      const keys = keysOf(collection, next);
      if (!Array.isArray(keys)) {
        keep(current, held, true);
        return keys;
      }
      keep(next, keys, true);
      collection.docs[at] = next;
      for (const ordered of collection.ordered.values()) {
        const place = ordered.remove(current);
        if (place !== undefined) ordered.add(next, place);
      }
      return undefined;
    },

    remove(db, name, doc) {
      const collection = collections.get(`${db}.${name}`);
      const at = collection ? collection.docs.indexOf(doc) : -1;
      if (at < 0) return;
      keep(doc, keysHeld(collection!, doc), false);
      collection!.docs.splice(at, 1);
      for (const ordered of collection!.ordered.values()) ordered.remove(doc);
    },

    createIndexes(db, name, specs) {
      const { collection, created } = ensure(db, name);
      const before = collection.indexes.length;
      const added: IndexSpec[] = [];
      for (const spec of specs) {
        const same = [...collection.indexes, ...added].find((index) => index.name === spec.name);
        if (same) {
          if (sameKey(same.key, spec.key) && same.unique === spec.unique) continue;
          throw new CommandError(
            86,
            'IndexKeySpecsConflict',
            'An existing index has the same name as the requested index. ' +
              `Requested index: ${describe(spec)}, existing index: ${describe(same)}`,
          );
        }
        const other = [...collection.indexes, ...added].find((index) => sameKey(index.key, spec.key));
        if (other)
          throw new CommandError(
            85,
            'IndexOptionsConflict',
            `Index already exists with a different name: ${other.name}`,
          );
        added.push(spec);
      }
      // A unique index over data that already repeats a key cannot be built: mongod fails the whole command.
      for (const spec of added.filter((index) => index.unique)) {
        const keys = keysFor(spec);
        for (const doc of collection.docs) {
          const slot = keys.slotOf(doc);
          if (slot.map.has(slot.part))
            throw new CommandError(11000, 'DuplicateKey', duplicateMessage(collection.ns, spec, keyOf(spec, doc)));
          slot.map.set(slot.part, doc);
        }
        collection.keys.set(spec.name, keys);
      }
      for (const spec of added) {
        const ordered = createOrderedKeys(Object.keys(spec.key));
        // Their positions are their places: in natural order, and below every place given since (nextPlace).
        collection.docs.forEach((doc, position) => ordered.add(doc, position));
        collection.ordered.set(spec.name, ordered);
      }
      collection.indexes.push(...added);
      return { before: created ? 1 : before, after: collection.indexes.length, created };
    },

    drop(db, name) {
      const collection = collections.get(`${db}.${name}`);
      collections.delete(`${db}.${name}`);
      return collection?.indexes.length;
    },

    dropDatabase(db) {
      for (const ns of collections.keys()) if (ns.startsWith(`${db}.`)) collections.delete(ns);
    },
  };
}

/**
 * The documents a `{ <field>: { $in: [...] } }` names by a unique index on that field alone (a deleteMany of merged
 * lost ranges by `_id`): one lookup per value, as mongod's index would, not a test of each document against the list.
 */
function listedKeys(collection: StoredCollection, filter: Document | undefined): Document[] | undefined {
  for (const index of collection.indexes) {
    const paths = Object.keys(index.key);
    const condition = paths.length === 1 && index.unique ? (filter?.[paths[0]!] as Document | undefined) : undefined;
    const listed = condition?.$in;
    if (!Array.isArray(listed) || Object.keys(condition!).length !== 1) continue;
    const keys = collection.keys.get(index.name)!;
    const found = new Set(listed.map((value) => keys.find([value])).filter((doc) => doc !== undefined));
    // In natural order: a pass over the collection comparing identities, no filter tested.
    return found.size === 0 ? [] : collection.docs.filter((doc) => found.has(doc));
  }
  return undefined;
}

/** The index scan with the fewest candidates for `filter` (one in `sort`'s order among equals), if an index has one. */
function bestScan(
  collection: StoredCollection,
  filter: Document | undefined,
  pinned: ReadonlyMap<string, unknown>,
  sort: Document | undefined,
): IndexScan | undefined {
  let best: IndexScan | undefined;
  for (const ordered of collection.ordered.values()) {
    const scan = ordered.scan(filter ?? {}, pinned, sort);
    if (!scan || (best && (scan.size > best.size || (scan.size === best.size && !scan.inOrder)))) continue;
    best = scan;
  }
  return best;
}

/** `E11000 duplicate key error collection: app.readings index: deviceId_1_session_1_seq_1 dup key: { … }`. */
export function duplicateMessage(ns: string, index: IndexSpec, keyValue: Document): string {
  return `E11000 duplicate key error collection: ${ns} index: ${index.name} dup key: ${renderKey(keyValue)}`;
}

function keyOf(index: IndexSpec, doc: Document): Document {
  const key: Document = {};
  for (const path of Object.keys(index.key)) key[path] = valueAt(doc, path) ?? null;
  return key;
}

const keysFor = (index: IndexSpec): UniqueKeys => createUniqueKeys(Object.keys(index.key));

/** Adds (or takes out) `doc` at its `slots` in the unique indexes. */
function keep(doc: Document, slots: readonly KeySlot[], present: boolean): void {
  for (const { map, part } of slots) {
    if (present) map.set(part, doc);
    else map.delete(part);
  }
}

// mongod stores _id as the first field, and makes one when the client sent none (the driver sends one, last). A
// literal with _id first keeps that place when the spread writes _id again, so one copy is made, not two.
function idFirst(given: Document): Document {
  if (given._id !== undefined) return { _id: given._id, ...given };
  const { _id, ...fields } = given;
  return { _id: new ObjectId(), ...fields };
}

function sameKey(a: Document, b: Document): boolean {
  const left = Object.entries(a);
  const right = Object.entries(b);
  return (
    left.length === right.length && left.every(([k, v], i) => right[i]![0] === k && Number(right[i]![1]) === Number(v))
  );
}

function describe(index: IndexSpec): string {
  return renderKey({ v: 2, ...(index.unique ? { unique: true } : {}), key: index.key, name: index.name });
}
