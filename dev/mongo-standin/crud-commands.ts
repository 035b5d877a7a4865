// The stand-in's data commands, answered from memory in the shapes mongod answers them: insert (ordered and unordered,
// E11000 write errors), update, delete and findAndModify (update-commands.ts), find with a filter, sort, skip and
// limit and a projection of fields, getMore and killCursors, count, distinct, createIndexes, listIndexes, drop and
// dropDatabase. Write concerns and maxTimeMS are accepted and have nothing to wait for: every answer is in memory
// already.
import { BSON, Long, type Document } from 'bson';
import { CommandError } from './command-error.ts';
import { createMemory, type IndexSpec, type Memory } from './memory.ts';
import { compileProjection } from './projection.ts';
import { compileFilter, firstInOrder, sortDocuments } from './query.ts';
import { createUpdateCommands } from './update-commands.ts';
import { compareValues, valueAt } from './values.ts';

/** Commands this module answers, in the order the README lists them. */
export const CRUD_COMMANDS = [
  'insert',
  'update',
  'delete',
  'findAndModify',
  'find',
  'getMore',
  'killCursors',
  'count',
  'distinct',
  'createIndexes',
  'listIndexes',
  'drop',
  'dropDatabase',
] as const;

// mongod's first batch holds 101 documents unless the client asks otherwise.
const FIRST_BATCH = 101;
// Open cursors kept at most; beyond, the oldest is forgotten (a client that never finishes its cursors).
const CURSORS_MAX = 1000;
const UNSUPPORTED_FIND_OPTIONS = ['hint', 'collation', 'min', 'max', 'tailable', 'awaitData', 'let'];
const INDEX_OPTIONS = new Set(['key', 'name', 'unique', 'v', 'background']);

// A batch holds at most 16 MiB (at least one document), as in mongod: its reply stays under the object limit.
const BATCH_BYTES = 16 * 1024 * 1024;
// mongod refuses a distinct whose values pass 16 MiB less its reply's overhead.
const DISTINCT_BYTES = 16 * 1024 * 1024 - 1024;

interface Cursor {
  ns: string;
  docs: Document[];
  /** The next document to send. */
  at: number;
}

export interface CrudCommands {
  /** The reply to `command` (named `name`), or undefined when it is not one of CRUD_COMMANDS. */
  answer(name: string, command: Document): Document | undefined;
}

export function createCrudCommands(memory: Memory = createMemory()): CrudCommands {
  const cursors = new Map<string, Cursor>();
  const updates = createUpdateCommands(memory);
  let nextCursor = Long.fromNumber(Math.floor(Math.random() * 2 ** 40) + 1);

  /** The first batch, and a cursor for the rest (id 0 when nothing is left). */
  function openCursor(ns: string, docs: Document[], batchSize: number, single: boolean): Document {
    const end = batchEnd(docs, 0, batchSize);
    const firstBatch = docs.slice(0, end);
    if (single || end === docs.length) return { cursor: { firstBatch, id: Long.ZERO, ns }, ok: 1 };
    const id = nextCursor;
    nextCursor = nextCursor.add(1);
    cursors.set(id.toString(), { ns, docs, at: end });
    if (cursors.size > CURSORS_MAX) cursors.delete(cursors.keys().next().value!);
    return { cursor: { firstBatch, id, ns }, ok: 1 };
  }

  const handlers: Record<(typeof CRUD_COMMANDS)[number], (command: Document, db: string) => Document> = {
    insert(command, db) {
      const name = collectionName(command, 'insert');
      if (!Array.isArray(command.documents)) throw badValue('insert needs a documents array');
      const { n, writeErrors } = memory.insert(db, name, command.documents as Document[], command.ordered !== false);
      return writeErrors.length > 0 ? { n, writeErrors, ok: 1 } : { n, ok: 1 };
    },

    update: (command, db) => updates.update(command, db, collectionName(command, 'update')),

    delete: (command, db) => updates.delete(command, db, collectionName(command, 'delete')),

    findAndModify: (command, db) => updates.findAndModify(command, db, collectionName(command, 'findAndModify')),

    find(command, db) {
      const name = collectionName(command, 'find');
      for (const option of UNSUPPORTED_FIND_OPTIONS) {
        if (command[option] !== undefined) throw badValue(`find's ${option} is not supported by the MongoDB stand-in`);
      }
      const filter = command.filter as Document | undefined;
      const sort = command.sort as Document | undefined;
      const skip = Number(command.skip ?? 0);
      const limit = Math.abs(Number(command.limit ?? 0));
      const ordered = sort && memory.inOrder(db, name, filter, sort);
      let docs: Document[];
      if (ordered) docs = takeMatching(ordered, compileFilter(filter), skip, limit);
      else if (limit > 0) docs = firstInOrder(select(memory, db, name, filter), sort, skip + limit).slice(skip);
      else {
        const selected = select(memory, db, name, filter);
        docs = [...selected];
        sortDocuments(docs, sort);
        docs = docs.slice(skip);
      }
      const project = compileProjection(command.projection);
      if (project) docs = docs.map(project);
      const batchSize = command.batchSize === undefined ? FIRST_BATCH : Number(command.batchSize);
      const single = command.singleBatch === true || Number(command.limit) < 0;
      return openCursor(`${db}.${name}`, docs, single ? docs.length : batchSize, single);
    },

    getMore(command) {
      const id = Long.fromValue(command.getMore as Long | number);
      const cursor = cursors.get(id.toString());
      if (!cursor) throw new CommandError(43, 'CursorNotFound', `cursor id ${id.toString()} not found`);
      // Without a batchSize a getMore is bounded by bytes only, as in mongod.
      const batchSize = command.batchSize === undefined ? Infinity : Math.max(1, Number(command.batchSize));
      const end = batchEnd(cursor.docs, cursor.at, batchSize);
      const nextBatch = cursor.docs.slice(cursor.at, end);
      cursor.at = end;
      const done = end === cursor.docs.length;
      if (done) cursors.delete(id.toString());
      return { cursor: { nextBatch, id: done ? Long.ZERO : id, ns: cursor.ns }, ok: 1 };
    },

    killCursors(command) {
      const killed: Long[] = [];
      const notFound: Long[] = [];
      for (const value of (command.cursors ?? []) as Long[]) {
        const id = Long.fromValue(value);
        (cursors.delete(id.toString()) ? killed : notFound).push(id);
      }
      return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
    },

    count(command, db) {
      const docs = select(memory, db, collectionName(command, 'count'), command.query as Document | undefined);
      const skip = Number(command.skip ?? 0);
      const limit = Math.abs(Number(command.limit ?? 0));
      return { n: Math.max(0, Math.min(docs.length - skip, limit > 0 ? limit : Infinity)), ok: 1 };
    },

    distinct(command, db) {
      if (typeof command.key !== 'string') throw badValue('distinct needs a key');
      const docs = select(memory, db, collectionName(command, 'distinct'), command.query as Document | undefined);
      const values: unknown[] = [];
      let bytes = 0;
      for (const doc of docs) {
        const value = valueAt(doc, command.key);
        if (value === undefined || values.some((seen) => compareValues(seen, value) === 0)) continue;
        bytes += BSON.calculateObjectSize({ v: value }) - 5;
        if (bytes >= DISTINCT_BYTES) throw new CommandError(17217, 'Location17217', 'distinct too big, 16mb cap');
        values.push(value);
      }
      return { values: values.sort(compareValues), ok: 1 };
    },

    createIndexes(command, db) {
      const name = collectionName(command, 'createIndexes');
      if (!Array.isArray(command.indexes) || command.indexes.length === 0)
        throw badValue('createIndexes needs indexes');
      const specs = (command.indexes as Document[]).map(toIndexSpec);
      const { before, after, created } = memory.createIndexes(db, name, specs);
      if (before === after)
        return { numIndexesBefore: before, numIndexesAfter: after, note: 'all indexes already exist', ok: 1 };
      return { numIndexesBefore: before, numIndexesAfter: after, createdCollectionAutomatically: created, ok: 1 };
    },

    listIndexes(command, db) {
      const name = collectionName(command, 'listIndexes');
      const collection = memory.collection(db, name);
      if (!collection) throw new CommandError(26, 'NamespaceNotFound', `ns does not exist: ${db}.${name}`);
      const indexes = collection.indexes.map(({ key, name: indexName, unique }) => ({
        v: 2,
        key,
        name: indexName,
        ...(unique && indexName !== '_id_' ? { unique: true } : {}),
      }));
      return openCursor(`${db}.$cmd.listIndexes.${name}`, indexes, indexes.length, true);
    },

    drop(command, db) {
      const name = collectionName(command, 'drop');
      const indexes = memory.drop(db, name);
      // Since MongoDB 7.0 dropping a collection that does not exist succeeds too.
      return indexes === undefined ? { ok: 1 } : { nIndexesWas: indexes, ns: `${db}.${name}`, ok: 1 };
    },

    dropDatabase(_command, db) {
      memory.dropDatabase(db);
      return { ok: 1 };
    },
  };

  return {
    answer(name, command) {
      if (!(CRUD_COMMANDS as readonly string[]).includes(name)) return undefined;
      const db = typeof command.$db === 'string' ? command.$db : 'test';
      try {
        return handlers[name as (typeof CRUD_COMMANDS)[number]](command, db);
      } catch (error) {
        if (error instanceof CommandError) return error.reply();
        throw error;
      }
    },
  };
}

/** Where a batch starting at `from` ends: after `count` documents or before 16 MiB of them, whichever is first. */
function batchEnd(docs: Document[], from: number, count: number): number {
  let end = from;
  let bytes = 0;
  while (end < docs.length && end - from < count) {
    // Counted as the batch array holds it (type byte, index key and its NUL too), as mongod counts it.
    bytes += BSON.calculateObjectSize(docs[end]!) + 2 + String(end - from).length;
    if (bytes > BATCH_BYTES && end > from) break;
    end += 1;
  }
  return end;
}

/** From documents already in order, the matching ones past `skip`, at most `limit` of them (0: all): no sort. */
function takeMatching(docs: Iterable<Document>, matches: (doc: Document) => boolean, skip: number, limit: number) {
  const taken: Document[] = [];
  let skipped = 0;
  for (const doc of docs) {
    if (!matches(doc)) continue;
    if (skipped < skip) skipped += 1;
    else if (taken.push(doc) === limit) break;
  }
  return taken;
}

/** The stored documents matching `filter`: the collection's own array, not a copy, when the filter is empty. */
function select(memory: Memory, db: string, name: string, filter: Document | undefined): readonly Document[] {
  const candidates = memory.candidates(db, name, filter);
  if (filter === undefined || Object.keys(filter).length === 0) return candidates;
  return candidates.filter(compileFilter(filter));
}

function collectionName(command: Document, verb: string): string {
  const name = command[verb];
  if (typeof name !== 'string' || name === '') throw badValue(`${verb} needs a collection name`);
  return name;
}

function toIndexSpec(index: Document): IndexSpec {
  if (typeof index.name !== 'string' || typeof index.key !== 'object' || index.key === null) {
    throw badValue('each index needs a key and a name');
  }
  for (const option of Object.keys(index)) {
    if (!INDEX_OPTIONS.has(option)) throw badValue(`index option ${option} is not supported by the MongoDB stand-in`);
  }
  for (const [field, direction] of Object.entries(index.key as Document)) {
    if (Number(direction) !== 1 && Number(direction) !== -1) {
      throw badValue(`the MongoDB stand-in builds ascending and descending indexes only, not ${field}: ${direction}`);
    }
  }
  return { name: index.name, key: index.key as Document, unique: index.unique === true };
}

const badValue = (message: string) => new CommandError(2, 'BadValue', message);
