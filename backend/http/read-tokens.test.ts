import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readReadTokens } from './read-tokens.ts';
import { configError } from '../../test/support/config-error.ts';

const A = 'read-token-a-0123456789abcdef';
const B = 'read-token-b-0123456789abcdef';
const files: Record<string, string> = {
  '/run/secrets/read-tokens': `# current\n${A}\n\n# previous, until Friday\n${B}\n`,
};
const read = (env: Record<string, string>) =>
  readReadTokens(env, (path) => {
    if (path in files) return files[path]!;
    throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
  });

test('unset: undefined; READ_TOKENS comma-separated; READ_TOKENS_FILE one per line with # comments', () => {
  assert.is(read({}), undefined);
  assert.equal(read({ READ_TOKENS: ` ${A}, ${B} ` }), [A, B]);
  assert.equal(read({ READ_TOKENS_FILE: '/run/secrets/read-tokens' }), [A, B]);
});

test('a short or malformed token, an empty list, both settings: one line, never a token', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ READ_TOKENS: `${A},short` }, /^READ_TOKENS entry 2: the token is too short \(5 characters\)/],
    [{ READ_TOKENS: `${A} ${B}` }, /^READ_TOKENS entry 1: the token is not valid: it contains whitespace/],
    [{ READ_TOKENS: ' , ,' }, /^READ_TOKENS lists no token: expected one per line$/],
    [
      { READ_TOKENS: A, READ_TOKENS_FILE: '/run/secrets/read-tokens' },
      /^READ_TOKENS and READ_TOKENS_FILE are both set/,
    ],
    [{ READ_TOKENS_FILE: A }, /^READ_TOKENS_FILE names a file that cannot be read: ENOENT$/],
    // Bearer-shaped and 16 characters or more, but guessable: the strength rule (lib/token-strength.ts).
    [{ READ_TOKENS: `${A},${'a'.repeat(40)}` }, /^READ_TOKENS entry 2: the token is one repeated character/],
    [{ READ_TOKENS: `${'xy'.repeat(40)},${A}` }, /^READ_TOKENS entry 1: the token has too few distinct characters/],
    [{ READ_TOKENS: '0123456789abcdef' }, /^READ_TOKENS entry 1: the token is too short: about 64 bits, at least 128/],
  ];
  for (const [env, expected] of cases) {
    const text = configError(() => read(env));
    assert.match(text, expected);
    assert.not.ok(text.includes(A) || text.includes(B), text);
  }
});

test.run();
