import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTokenCheck } from './device-auth.ts';

const TOKEN = 'Abc-def_0123456789~+/=';
const OWN = { a: 'token-of-device-a-0123', 'b:x': 'token-of-device-bx-4567' };
const identify = createTokenCheck({ shared: TOKEN, devices: new Map(Object.entries(OWN)) });

test('the scheme is case-insensitive (RFC 7235); the token is compared exactly', () => {
  for (const header of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER ${TOKEN}`, `Bearer  ${TOKEN}`])
    assert.equal(identify(header), { deviceId: undefined }, header);
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
    OWN.a,
    `Basic ${OWN.a}`,
    `Bearer ${OWN.a.toUpperCase()}`,
  ]) {
    assert.is(identify(header), undefined, String(header));
  }
});

test("a device's own token names that device; the shared token names none", () => {
  assert.equal(identify(`Bearer ${OWN.a}`), { deviceId: 'a' });
  assert.equal(identify(`bearer ${OWN['b:x']}`), { deviceId: 'b:x' });
  assert.equal(identify(`Bearer ${TOKEN}`), { deviceId: undefined });
});

test('without a shared token only the devices’ own tokens pass; with no token at all nothing does', () => {
  const ownOnly = createTokenCheck({ devices: new Map(Object.entries(OWN)) });
  assert.equal(ownOnly(`Bearer ${OWN.a}`), { deviceId: 'a' });
  assert.is(ownOnly(`Bearer ${TOKEN}`), undefined);
  const none = createTokenCheck({});
  for (const header of [`Bearer ${TOKEN}`, `Bearer ${OWN.a}`, undefined, 'Bearer ']) assert.is(none(header), undefined);
});

test.run();
