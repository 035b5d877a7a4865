// isJsonObject and asObject: only a plain object passes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asObject, isJsonObject } from './json-object.ts';

test('a plain object passes; null, an array and a scalar do not', () => {
  const samples = [{ a: 1 }, null, [1], 'text', 3, undefined];
  assert.equal(samples.map(isJsonObject), [true, false, false, false, false, false]);
  assert.equal(samples.map(asObject), [{ a: 1 }, undefined, undefined, undefined, undefined, undefined]);
});

test.run();
