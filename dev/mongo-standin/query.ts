// The stand-in's query language: equality and the four range operators on fields (dotted paths too), and a sort
// over several fields. Anything else (`$regex`, `$or`, `$in`, …) is refused by name rather than answered wrongly.
import type { Document } from 'bson';
import { compareValues, typeRank, valueAt } from './values.ts';
import { CommandError } from './command-error.ts';

const RANGE: Record<string, (order: number) => boolean> = {
  $lt: (order) => order < 0,
  $lte: (order) => order <= 0,
  $gt: (order) => order > 0,
  $gte: (order) => order >= 0,
};

/** A predicate for `filter`; throws a CommandError (BadValue) for what the stand-in does not do. */
export function compileFilter(filter: Document = {}): (doc: Document) => boolean {
  const tests = Object.entries(filter).map(([path, condition]) => {
    if (path.startsWith('$')) throw unsupported(path);
    if (!isOperatorObject(condition)) return (doc: Document) => equals(valueAt(doc, path), condition);
    const checks = Object.entries(condition as Document).map(([operator, operand]) => {
      if (operator === '$eq') return (value: unknown) => equals(value, operand);
      const range = RANGE[operator];
      if (!range) throw unsupported(operator);
      // Type bracketing, as mongod does it: {$lt: <date>} only ever matches dates.
      return (value: unknown) => typeRank(value) === typeRank(operand) && range(compareValues(value, operand));
    });
    return (doc: Document) => {
      const value = valueAt(doc, path);
      return checks.every((check) => check(value));
    };
  });
  return (doc) => tests.every((test) => test(doc));
}

/** A comparator for a sort specification such as `{ timestamp: -1, seq: -1 }`. */
export function compileSort(sort: Document | undefined): ((a: Document, b: Document) => number) | undefined {
  if (!sort || Object.keys(sort).length === 0) return undefined;
  const keys = Object.entries(sort).map(([path, direction]) => {
    const sign = Number(direction);
    if (sign !== 1 && sign !== -1) {
      throw new CommandError(2, 'BadValue', `the MongoDB stand-in sorts by 1 or -1 only, not ${String(direction)}`);
    }
    return { path, sign };
  });
  return (a, b) => {
    for (const { path, sign } of keys) {
      const order = compareValues(valueAt(a, path), valueAt(b, path));
      if (order !== 0) return order * sign;
    }
    return 0;
  };
}

function equals(value: unknown, operand: unknown): boolean {
  // A missing field equals null, as in mongod.
  if (operand === null) return value === null || value === undefined;
  return typeRank(value) === typeRank(operand) && compareValues(value, operand) === 0;
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
    `${operator} is not supported by the MongoDB stand-in (filters: equality, $eq, $lt, $lte, $gt, $gte)`,
  );
}
