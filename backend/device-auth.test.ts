import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTokenCheck } from './device-auth.ts';

const TOKEN = 'Abc-def_0123456789~+/=';
const isAuthorized = createTokenCheck(TOKEN);

test('the scheme is case-insensitive (RFC 7235); the token is compared exactly', () => {
  for (const header of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER ${TOKEN}`, `Bearer  ${TOKEN}`])
    assert.ok(isAuthorized(header), header);
  for (const header of [
    undefined,
    '',
    'Bearer',
    'Bearer ',
    TOKEN,
    `Bearer ${TOKEN.toLowerCase()}`,
    `Bearer ${TOKEN}x`,
    `Bearer ${TOKEN.slice(0, -1)}`,
    `Basic ${TOKEN}`,
    `Bearer ${TOKEN} extra`,
    `Token ${TOKEN}`,
  ]) {
    assert.not.ok(isAuthorized(header), String(header));
  }
});

test.run();
