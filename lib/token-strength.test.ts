import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MIN_TOKEN_BITS, tokenBits, tokenStrengthProblem } from './token-strength.ts';

test('tokens made as the docs say are strong enough', () => {
  for (const token of [
    '0123456789abcdef0123456789abcdef', // openssl rand -hex 16: exactly 128 bits
    '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', // -hex 32
    'q2Vb8sE1xZ4mN7pL0kR3tY6uW9',
    'Zm9vYmFyYmF6cXV4cXV1eA+/==',
  ])
    assert.is(tokenStrengthProblem(token), undefined, token);
});

test('one repeated character is refused by that rule, at any length', () => {
  assert.is(
    tokenStrengthProblem('aaaaaaaaaaaaaaaa'),
    'is one repeated character (make one with `openssl rand -hex 32`)',
  );
  assert.match(tokenStrengthProblem('7'.repeat(200))!, /^is one repeated character/);
});

test('too few distinct characters is refused by that rule, at any length', () => {
  assert.match(tokenStrengthProblem('ab'.repeat(64))!, /^has too few distinct characters \(2, at least 8;/);
  assert.match(tokenStrengthProblem('abcdefg'.repeat(20))!, /\(7, at least 8;/);
  assert.is(tokenStrengthProblem('abcdefgh'.repeat(5)), undefined);
});

test('a short token is refused with its estimate; the wording never holds the token', () => {
  const hex31 = '0123456789abcdef0123456789abcde';
  assert.is(tokenBits(hex31), 124);
  const problem = tokenStrengthProblem(hex31)!;
  assert.match(problem, /^is too short: about 124 bits, at least 128/);
  assert.not.ok(problem.includes(hex31));
  assert.match(tokenStrengthProblem('operator-token-01')!, /^is too short/);
});

test('the estimate: hex is 4 bits a character, mixed classes more', () => {
  assert.is(tokenBits('00ff'), 16);
  assert.is(tokenBits('00FF'), 16);
  assert.is(tokenBits('0aF'), Math.floor(3 * Math.log2(62)));
  assert.is(tokenBits('ghij'), Math.floor(4 * Math.log2(26)));
  assert.is(tokenBits('ghij1'), Math.floor(5 * Math.log2(36)));
  assert.is(tokenBits('a-b'), Math.floor(3 * Math.log2(58)));
  assert.is(tokenBits('XY'), Math.floor(2 * Math.log2(26)));
  assert.ok(tokenBits('x'.repeat(28) + 'Y1-') >= MIN_TOKEN_BITS);
});

test.run();
