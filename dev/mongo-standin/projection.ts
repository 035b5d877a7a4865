// A find's projection, as mongod applies it to plain field names: `{ seq: 1, _id: 0 }` keeps only the named fields
// (and `_id` unless excluded), in the document's order; `{ value: 0 }` keeps every field but those. Dotted paths and
// projection operators (`$slice`, `$elemMatch`, expressions) are refused by name rather than answered wrongly.
import type { Document } from 'bson';
import { CommandError } from './command-error.ts';
import { isNumber, toNumber } from './values.ts';

/** The function that projects a stored document (a copy; the stored one stays whole), or undefined for none. */
export function compileProjection(projection: unknown): ((doc: Document) => Document) | undefined {
  if (projection === undefined || projection === null) return undefined;
  if (typeof projection !== 'object' || Array.isArray(projection)) throw badValue('projection must be an object');
  const fields = new Map<string, boolean>();
  for (const [path, value] of Object.entries(projection as Document)) {
    if (path.startsWith('$') || path.includes('.')) throw unsupported(`the projection of ${path}`);
    if (typeof value !== 'boolean' && !isNumber(value)) throw unsupported(`a projection value for ${path}`);
    fields.set(path, typeof value === 'boolean' ? value : toNumber(value) !== 0);
  }
  if (fields.size === 0) return undefined;
  const keepId = fields.get('_id') ?? true;
  fields.delete('_id');
  const included = [...fields].filter(([, keep]) => keep).map(([path]) => path);
  const excluded = [...fields].filter(([, keep]) => !keep).map(([path]) => path);
  if (included.length > 0 && excluded.length > 0) {
    throw new CommandError(
      31254,
      'Location31254',
      `Cannot do exclusion on field ${excluded[0]} in inclusion projection`,
    );
  }
  const inclusion = included.length > 0;
  return (doc) => {
    const out: Document = {};
    for (const [path, value] of Object.entries(doc)) {
      const kept = path === '_id' ? keepId : inclusion ? fields.has(path) : !fields.has(path);
      if (kept) out[path] = value;
    }
    return out;
  };
}

const badValue = (message: string) => new CommandError(2, 'BadValue', message);

const unsupported = (what: string) =>
  badValue(`${what} is not supported by the MongoDB stand-in (projections: field names, 1 or 0)`);
