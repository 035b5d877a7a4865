// The stand-in's `update`, `delete` and `findAndModify` commands, answered from memory in mongod's shapes: several
// update statements (ordered or not) with `upsert` and `multi`, replying n / nModified / upserted / writeErrors, and
// one document found, changed or removed, replying lastErrorObject and value.
import { ObjectId, type Document } from 'bson';
import { CommandError } from './command-error.ts';
import type { Memory, WriteError } from './memory.ts';
import { compileFilter, firstInOrder, equalityFields } from './query.ts';
import { changed, compileUpdate, type ApplyUpdate } from './update.ts';

const STATEMENT_FIELDS = new Set(['q', 'u', 'upsert', 'multi']);
const FIND_AND_MODIFY_UNSUPPORTED = ['collation', 'arrayFilters', 'hint', 'let'];

export interface UpdateCommands {
  update(command: Document, db: string, name: string): Document;
  /** `delete`: each statement's `q` removes its first match (`limit: 1`) or every match (`limit: 0`). */
  delete(command: Document, db: string, name: string): Document;
  findAndModify(command: Document, db: string, name: string): Document;
}

export function createUpdateCommands(memory: Memory): UpdateCommands {
  /** Stores a new document made from `filter`'s equalities and `apply`; returns it, or throws the refusal. */
  function upsert(db: string, name: string, filter: Document, apply: ApplyUpdate): Document {
    const start: Document = {};
    for (const [path, value] of equalityFields(filter)) setPath(start, path, value);
    const made = apply(start, true);
    const doc = { _id: made._id ?? start._id ?? new ObjectId(), ...made };
    const [refusal] = memory.insert(db, name, [doc], true).writeErrors;
    if (refusal) throw duplicateKey(refusal);
    return doc;
  }

  /** Writes `apply(doc)` in place of `doc`; returns the new document and whether it differs. */
  function modify(db: string, name: string, doc: Document, apply: ApplyUpdate) {
    const next = apply(doc, false);
    const differs = changed(doc, next);
    const refusal = differs ? memory.replace(db, name, doc, next) : undefined;
    if (refusal) throw duplicateKey(refusal);
    return { next, differs };
  }

  function matching(db: string, name: string, filter: Document | undefined): Document[] {
    const matches = compileFilter(filter);
    return memory.candidates(db, name, filter).filter(matches);
  }

  return {
    delete(command, db, name) {
      if (!Array.isArray(command.deletes)) throw badValue('delete needs a deletes array');
      let n = 0;
      for (const { q, limit } of command.deletes as Document[]) {
        if (limit !== 0 && limit !== 1) throw badValue("delete's limit is 0 or 1");
        const found = matching(db, name, q as Document | undefined);
        for (const doc of limit === 1 ? found.slice(0, 1) : found) memory.remove(db, name, doc);
        n += limit === 1 ? Math.min(1, found.length) : found.length;
      }
      return { n, ok: 1 };
    },

    update(command, db, name) {
      if (!Array.isArray(command.updates)) throw badValue('update needs an updates array');
      const ordered = command.ordered !== false;
      let n = 0;
      let nModified = 0;
      const upserted: Document[] = [];
      const writeErrors: Array<Omit<WriteError, 'keyPattern' | 'keyValue'> & Document> = [];
      for (const [index, statement] of (command.updates as Document[]).entries()) {
        try {
          for (const field of Object.keys(statement)) {
            if (!STATEMENT_FIELDS.has(field))
              throw badValue(`update's ${field} is not supported by the MongoDB stand-in`);
          }
          const apply = compileUpdate(statement.u);
          const found = matching(db, name, statement.q as Document | undefined);
          const targets = statement.multi === true ? found : found.slice(0, 1);
          if (targets.length === 0 && statement.upsert === true) {
            const doc = upsert(db, name, (statement.q ?? {}) as Document, apply);
            upserted.push({ index, _id: doc._id });
            n += 1;
          }
          for (const doc of targets) {
            const { differs } = modify(db, name, doc, apply);
            n += 1;
            if (differs) nModified += 1;
          }
        } catch (error) {
          if (!(error instanceof CommandError)) throw error;
          writeErrors.push({ index, code: error.code, errmsg: error.message, ...error.details });
          if (ordered) break;
        }
      }
      return {
        n,
        nModified,
        ...(upserted.length > 0 ? { upserted } : {}),
        ...(writeErrors.length > 0 ? { writeErrors } : {}),
        ok: 1,
      };
    },

    findAndModify(command, db, name) {
      for (const option of FIND_AND_MODIFY_UNSUPPORTED) {
        if (command[option] !== undefined)
          throw badValue(`findAndModify's ${option} is not supported by the MongoDB stand-in`);
      }
      if (command.fields !== undefined && Object.keys(command.fields as Document).length > 0) {
        throw badValue("findAndModify's fields is not supported by the MongoDB stand-in");
      }
      const remove = command.remove === true;
      if (remove === (command.update !== undefined)) {
        throw new CommandError(9, 'FailedToParse', 'Either an update or remove=true must be specified, not both');
      }
      if (remove && (command.upsert === true || command.new === true)) {
        throw new CommandError(9, 'FailedToParse', 'Cannot specify remove=true with upsert=true or new=true');
      }
      const apply = remove ? undefined : compileUpdate(command.update);
      const [doc] = firstInOrder(matching(db, name, command.query as Document | undefined), command.sort, 1);
      if (!apply) {
        if (doc) memory.remove(db, name, doc);
        return { lastErrorObject: { n: doc ? 1 : 0 }, value: doc ?? null, ok: 1 };
      }
      if (doc) {
        const { next } = modify(db, name, doc, apply);
        return { lastErrorObject: { n: 1, updatedExisting: true }, value: command.new === true ? next : doc, ok: 1 };
      }
      if (command.upsert !== true) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
      const made = upsert(db, name, (command.query ?? {}) as Document, apply);
      return {
        lastErrorObject: { n: 1, updatedExisting: false, upserted: made._id },
        value: command.new === true ? made : null,
        ok: 1,
      };
    },
  };
}

function setPath(doc: Document, path: string, value: unknown): void {
  const parts = path.split('.');
  const last = parts.pop()!;
  let target = doc;
  for (const part of parts) target = (target[part] ??= {}) as Document;
  target[last] = value;
}

function duplicateKey(refusal: { errmsg: string; keyPattern: Document; keyValue: Document }): CommandError {
  return new CommandError(11000, 'DuplicateKey', refusal.errmsg, {
    keyPattern: refusal.keyPattern,
    keyValue: refusal.keyValue,
  });
}

const badValue = (message: string) => new CommandError(2, 'BadValue', message);
