// How the stand-in applies an update document to a stored one: the operators $set, $setOnInsert, $inc, $max, $min
// and $unset on fields (dotted paths too), or a whole replacement, refusing the rest by name in mongod's codes.
import { BSON, Long, type Document } from 'bson';
import { CommandError } from './command-error.ts';
import { compareValues, isNumber, renderValue, typeRank } from './values.ts';

/** The document `doc` becomes (a new object; `doc` is left alone); `inserting` applies $setOnInsert too. */
export type ApplyUpdate = (doc: Document, inserting: boolean) => Document;

type FieldOperator = (target: Document, field: string, operand: unknown, doc: Document) => void;

const OPERATORS: Record<string, FieldOperator> = {
  $set: (target, field, operand) => void (target[field] = copy(operand)),
  $setOnInsert: (target, field, operand) => void (target[field] = copy(operand)),
  $unset: (target, field) => void delete target[field],
  $max: (target, field, operand) => {
    if (!(field in target) || compareValues(operand, target[field]) > 0) target[field] = copy(operand);
  },
  $min: (target, field, operand) => {
    if (!(field in target) || compareValues(operand, target[field]) < 0) target[field] = copy(operand);
  },
  $inc: (target, field, operand, doc) => {
    if (!(field in target)) return void (target[field] = operand);
    if (!isNumber(target[field])) {
      throw new CommandError(
        14,
        'TypeMismatch',
        `Cannot apply $inc to a value of non-numeric type. {_id: ${renderValue(doc._id)}} ` +
          `has the field '${field}' of non-numeric type ${typeName(target[field])}`,
      );
    }
    target[field] = add(target[field], operand);
  },
};

/** Checks `update` once and returns how to apply it; throws a CommandError for what mongod or the stand-in refuse. */
export function compileUpdate(update: unknown): ApplyUpdate {
  if (Array.isArray(update)) throw unsupported('an update pipeline');
  if (typeRank(update) !== 5) throw new CommandError(9, 'FailedToParse', 'the update must be a document');
  const keys = Object.keys(update as Document);
  if (keys.length === 0 || !keys[0]!.startsWith('$')) return replacement(update as Document);
  const steps: Array<{ operator: string; path: string; operand: unknown }> = [];
  for (const [operator, fields] of Object.entries(update as Document)) {
    if (!operator.startsWith('$')) throw new CommandError(9, 'FailedToParse', `Unknown modifier: ${operator}`);
    if (!OPERATORS[operator]) throw unsupported(operator);
    if (typeRank(fields) !== 5) throw new CommandError(9, 'FailedToParse', `${operator} needs a document of fields`);
    for (const [path, operand] of Object.entries(fields as Document)) {
      checkPath(path, operator);
      if (operator === '$inc' && !isNumber(operand)) {
        throw new CommandError(
          14,
          'TypeMismatch',
          `Cannot increment with non-numeric argument: {${path}: ${renderValue(operand)}}`,
        );
      }
      for (const step of steps) {
        if (step.path === path || step.path.startsWith(`${path}.`) || path.startsWith(`${step.path}.`)) {
          throw new CommandError(
            40,
            'ConflictingUpdateOperators',
            `Updating the path '${path}' would create a conflict at '${step.path}'`,
          );
        }
      }
      steps.push({ operator, path, operand });
    }
  }
  return (doc, inserting) => {
    const next = copy(doc) as Document;
    for (const { operator, path, operand } of steps) {
      if (operator === '$setOnInsert' && !inserting) continue;
      if (path === '_id' && !inserting && compareValues(operand, doc._id) !== 0) throw immutableId();
      const { target, field } = parentOf(next, path, operator === '$unset');
      if (target) OPERATORS[operator]!(target, field, operand, doc);
    }
    return next;
  };
}

/** Whether `next` differs from `doc` in any byte as stored (what mongod's nModified counts). */
export function changed(doc: Document, next: Document): boolean {
  return !Buffer.from(BSON.serialize(doc)).equals(BSON.serialize(next));
}

function replacement(update: Document): ApplyUpdate {
  for (const field of Object.keys(update)) {
    if (field.startsWith('$')) throw new CommandError(9, 'FailedToParse', `Unknown modifier: ${field}`);
  }
  return (doc) => {
    if ('_id' in update && compareValues(update._id, doc._id) !== 0 && doc._id !== undefined) throw immutableId();
    const { _id: _ignored, ...fields } = copy(update) as Document;
    return doc._id === undefined ? { ...fields } : { _id: doc._id, ...fields };
  };
}

/** The object holding the last part of `path` (made on the way unless only removing), and that part's name. */
function parentOf(doc: Document, path: string, removing: boolean): { target: Document | undefined; field: string } {
  const parts = path.split('.');
  const field = parts.pop()!;
  let target: Document = doc;
  for (const part of parts) {
    const inner = target[part];
    if (inner === undefined) {
      if (removing) return { target: undefined, field };
      target[part] = {};
    } else if (Array.isArray(inner)) {
      throw unsupported(`updating inside an array (${path})`);
    } else if (typeRank(inner) !== 5) {
      if (removing) return { target: undefined, field };
      throw new CommandError(
        28,
        'PathNotViable',
        `Cannot create field '${field}' in element {${part}: ${String(inner)}}`,
      );
    }
    target = target[part] as Document;
  }
  return { target, field };
}

function checkPath(path: string, operator: string): void {
  const parts = path.split('.');
  if (parts.some((part) => part === '')) {
    throw new CommandError(56, 'EmptyFieldName', `An empty update path is not valid: '${path}' in ${operator}`);
  }
  if (parts.some((part) => part.startsWith('$'))) throw unsupported(`the positional path ${path}`);
}

function add(a: unknown, b: unknown): unknown {
  const integral = (value: unknown) => Long.isLong(value) || (typeof value === 'number' && Number.isInteger(value));
  if ((Long.isLong(a) || Long.isLong(b)) && integral(a) && integral(b)) {
    return Long.fromValue(a as Long).add(Long.fromValue(b as Long));
  }
  return Number(String(a)) + Number(String(b));
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return value instanceof Date ? 'date' : typeof value === 'object' ? 'object' : typeof value;
}

function copy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return BSON.deserialize(BSON.serialize({ v: value }), { promoteLongs: false }).v;
}

const immutableId = () =>
  new CommandError(
    66,
    'ImmutableField',
    "Performing an update on the path '_id' would modify the immutable field '_id'",
  );

const unsupported = (what: string) =>
  new CommandError(
    2,
    'BadValue',
    `${what} is not supported by the MongoDB stand-in (updates: $set, $setOnInsert, $inc, $max, $min, $unset, ` +
      'or a replacement document)',
  );
