// The stand-in's query language: equality, the four range operators, $ne, $in, $nin and $exists on fields (dotted
// paths too), $and and $or over whole filters, and a sort over several fields. Anything else (`$regex`, `$nor`,
// `$elemMatch`, …) is refused by name rather than answered wrongly.
import type { Document } from 'bson';
import { compareValues, getter, isNumber, typeRank } from './values.ts';
import { CommandError } from './command-error.ts';

type Check = (value: unknown) => boolean;

const RANGE: Record<string, (order: number) => boolean> = {
  $lt: (order) => order < 0,
  $lte: (order) => order <= 0,
  $gt: (order) => order > 0,
  $gte: (order) => order >= 0,
};

const FIELD_OPERATORS: Record<string, (operand: unknown, operator: string) => Check> = {
  $eq: (operand) => (value) => equals(value, operand),
  $ne: (operand) => (value) => !equals(value, operand),
  $in: (operand, operator) => {
    const list = listOperand(operand, operator);
    return (value) => list.some((item) => equals(value, item));
  },
  $nin: (operand, operator) => {
    const list = listOperand(operand, operator);
    return (value) => !list.some((item) => equals(value, item));
  },
  // mongod reads the operand as a truth value: {$exists: 0} asks for the field to be missing.
  $exists: (operand) => (value) => (value !== undefined) === truthy(operand),
};

/** A predicate for `filter`; throws a CommandError (BadValue) for what the stand-in does not do. */
export function compileFilter(filter: Document = {}): (doc: Document) => boolean {
  const tests = Object.entries(filter).map(([path, condition]): ((doc: Document) => boolean) => {
    if (path === '$and' || path === '$or') {
      const parts = clauses(condition, path).map((clause) => compileFilter(clause));
      return path === '$and' ? (doc) => parts.every((part) => part(doc)) : (doc) => parts.some((part) => part(doc));
    }
    if (path.startsWith('$')) throw unsupported(path);
    const read = getter(path);
    if (!isOperatorObject(condition)) return (doc: Document) => equals(read(doc), condition);
    const checks = Object.entries(condition as Document).map(([operator, operand]) => fieldCheck(operator, operand));
    return (doc: Document) => {
      const value = read(doc);
      return checks.every((check) => check(value));
    };
  });
  return (doc) => tests.every((test) => test(doc));
}

/** The fields a filter pins to one value (`{ a: 1, b: { $eq: 2 } }`, inside `$and` too): an upsert starts from them. */
export function equalityFields(filter: Document = {}): Array<[string, unknown]> {
  const fields: Array<[string, unknown]> = [];
  for (const [path, condition] of Object.entries(filter)) {
    if (path === '$and' && Array.isArray(condition)) {
      for (const clause of condition as Document[]) fields.push(...equalityFields(clause));
    } else if (!path.startsWith('$')) {
      if (!isOperatorObject(condition)) fields.push([path, condition]);
      else if ('$eq' in (condition as Document)) fields.push([path, (condition as Document).$eq]);
    }
  }
  return fields;
}

/**
 * Sorts `docs` in place by a sort specification such as `{ timestamp: -1, seq: -1 }` (stable, as mongod's order is
 * for equal keys here); each document's keys are read once, not once per comparison.
 */
export function sortDocuments(docs: Document[], sort: Document | undefined): void {
  const keys = compileSort(sort);
  if (!keys) return;
  const decorated = docs.map((doc) => ({ doc, values: keys.map(({ read }) => read(doc)) }));
  decorated.sort((a, b) => compareKeys(keys, a.values, b.values));
  decorated.forEach(({ doc }, i) => (docs[i] = doc));
}

/**
 * The first `count` of `docs` in `sort` order, exactly as sortDocuments orders them, without sorting the rest: a
 * find with a limit costs a look at each document, not a sort of them all (mongod's sort stage keeps only `limit`
 * documents too).
 */
export function firstInOrder(docs: readonly Document[], sort: Document | undefined, count: number): Document[] {
  const keys = compileSort(sort);
  if (!keys) return docs.slice(0, count);
  const top: Array<{ doc: Document; values: unknown[] }> = [];
  for (const doc of docs) {
    if (top.length === count && compareUnread(keys, doc, top[count - 1]!.values) >= 0) continue;
    const values = keys.map(({ read }) => read(doc));
    // Inserted after every equal one: documents with equal keys keep their order, as in the stable sort.
    let low = 0;
    let high = top.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (compareKeys(keys, values, top[middle]!.values) < 0) high = middle;
      else low = middle + 1;
    }
    top.splice(low, 0, { doc, values });
    if (top.length > count) top.pop();
  }
  return top.map(({ doc }) => doc);
}

/** compareKeys for a document whose keys are not read yet: read one at a time, only as far as the order needs. */
function compareUnread(
  keys: Array<{ read: (doc: Document) => unknown; sign: number }>,
  doc: Document,
  values: unknown[],
) {
  for (let i = 0; i < keys.length; i++) {
    const order = compareValues(keys[i]!.read(doc), values[i]);
    if (order !== 0) return order * keys[i]!.sign;
  }
  return 0;
}

function compareKeys(keys: Array<{ sign: number }>, a: unknown[], b: unknown[]): number {
  for (const [i, { sign }] of keys.entries()) {
    const order = compareValues(a[i], b[i]);
    if (order !== 0) return order * sign;
  }
  return 0;
}

function compileSort(sort: Document | undefined) {
  if (!sort || Object.keys(sort).length === 0) return undefined;
  return Object.entries(sort).map(([path, direction]) => {
    const sign = Number(direction);
    if (sign !== 1 && sign !== -1) {
      throw new CommandError(2, 'BadValue', `the MongoDB stand-in sorts by 1 or -1 only, not ${String(direction)}`);
    }
    return { read: getter(path), sign };
  });
}

function fieldCheck(operator: string, operand: unknown): Check {
  const made = FIELD_OPERATORS[operator];
  if (made) return made(operand, operator);
  const range = RANGE[operator];
  if (!range) throw unsupported(operator);
  // Type bracketing, as mongod does it: {$lt: <date>} only ever matches dates.
  return (value) => typeRank(value) === typeRank(operand) && range(compareValues(value, operand));
}

function equals(value: unknown, operand: unknown): boolean {
  // A missing field equals null, as in mongod.
  if (operand === null) return value === null || value === undefined;
  // Two primitives of one type (the usual filter): equal as JavaScript says, NaN and -0 included.
  if (typeof value === typeof operand && typeof value !== 'object') return value === operand;
  return typeRank(value) === typeRank(operand) && compareValues(value, operand) === 0;
}

function listOperand(operand: unknown, operator: string): unknown[] {
  if (!Array.isArray(operand)) throw new CommandError(2, 'BadValue', `${operator} needs an array`);
  for (const item of operand) {
    if (item instanceof RegExp) throw unsupported(`a regular expression in ${operator}`);
    if (isOperatorObject(item)) throw new CommandError(2, 'BadValue', `cannot nest $ under ${operator}`);
  }
  return operand;
}

function clauses(condition: unknown, operator: string): Document[] {
  if (!Array.isArray(condition) || condition.length === 0) {
    throw new CommandError(2, 'BadValue', `${operator} argument must be a non-empty array`);
  }
  for (const clause of condition) {
    if (typeRank(clause) !== 5) throw new CommandError(2, 'BadValue', `${operator} argument's entries must be objects`);
  }
  return condition as Document[];
}

function truthy(operand: unknown): boolean {
  if (operand === null || operand === undefined || operand === false) return false;
  if (isNumber(operand)) return Number(String(operand)) !== 0;
  return true;
}

function isOperatorObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || typeRank(value) !== 5) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => key.startsWith('$'));
}

function unsupported(operator: string): CommandError {
  return new CommandError(
    2,
    'BadValue',
    `${operator} is not supported by the MongoDB stand-in ` +
      '(filters: equality, $eq, $ne, $lt, $lte, $gt, $gte, $in, $nin, $exists, $and, $or)',
  );
}
