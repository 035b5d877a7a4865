import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../lib/config-error.ts';
import { createTokenReload } from './token-reload.ts';

test('a reload puts the list read in force and says how many tokens and ended sessions, never a token', () => {
  const lines: string[] = [];
  const applied: (readonly string[])[] = [];
  const reload = createTokenReload({
    read: () => ['operator-token-kept-0123456789abcdef'],
    setTokens: (tokens) => (applied.push(tokens), 3),
    log: (line) => lines.push(line),
  });
  reload();
  assert.equal(applied, [['operator-token-kept-0123456789abcdef']]);
  assert.equal(lines, ['frontend: operator tokens reloaded: 1 token; 3 sessions of removed tokens ended']);
});

test('a list that cannot be read changes nothing: the old tokens stay, one line says why', () => {
  const lines: string[] = [];
  let applied = 0;
  const reload = createTokenReload({
    read: () => {
      throw new ConfigError('OPERATOR_TOKENS_FILE: token 2 is too short: about 64 bits, at least 128');
    },
    setTokens: () => (applied++, 0),
    log: (line) => lines.push(line),
  });
  assert.not.throws(reload);
  assert.is(applied, 0);
  assert.equal(lines, [
    'frontend: operator tokens not reloaded, the ones listed before stay: ' +
      'OPERATOR_TOKENS_FILE: token 2 is too short: about 64 bits, at least 128',
  ]);
});

test('counts in words: none, one, several', () => {
  const lines: string[] = [];
  for (const [tokens, ended] of [
    [[], 0],
    [['a', 'b'], 1],
  ] as const) {
    createTokenReload({ read: () => tokens, setTokens: () => ended, log: (line) => lines.push(line) })();
  }
  assert.equal(lines, [
    'frontend: operator tokens reloaded: 0 tokens; 0 sessions of removed tokens ended',
    'frontend: operator tokens reloaded: 2 tokens; 1 session of removed tokens ended',
  ]);
});

test.run();
