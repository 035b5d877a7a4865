import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createOperatorSessions } from './operator-session.ts';

const A = 'operator-token-a-0123456789abcdef';
const B = 'operator-token-b-fedcba9876543210';

test('a listed token signs in; any other text does not', () => {
  const sessions = createOperatorSessions({ tokens: [A, B] });
  assert.type(sessions.signIn(A), 'string');
  assert.type(sessions.signIn(B), 'string');
  for (const wrong of ['', A.slice(0, -1), `${A} `, A.toUpperCase(), 'x'.repeat(10_000)]) {
    assert.is(sessions.signIn(wrong), undefined, JSON.stringify(wrong.slice(0, 40)));
  }
});

test('the cookie holds no token and verifies until it expires', () => {
  let now = 1_000_000;
  const sessions = createOperatorSessions({ tokens: [A], ttlMs: 60_000, now: () => now });
  const cookie = sessions.signIn(A)!;
  assert.not.ok(cookie.includes(A), cookie);
  assert.ok(sessions.verify(cookie));
  now += 59_999;
  assert.ok(sessions.verify(cookie));
  now += 1;
  assert.not.ok(sessions.verify(cookie), 'expired');
});

test('a forged, altered or stretched cookie does not verify', () => {
  const sessions = createOperatorSessions({ tokens: [A] });
  const cookie = sessions.signIn(A)!;
  const [expires, mac] = cookie.split('.');
  for (const bad of [
    undefined,
    '',
    'garbage',
    `${Number(expires) + 1}.${mac}`, // a later expiry with the old signature
    `${expires}.${mac}x`,
    `${expires}.${mac}.extra`,
    `${expires}.`,
    `-1.${mac}`,
  ]) {
    assert.not.ok(sessions.verify(bad), String(bad));
  }
});

test('a token rotated out ends its sessions; the one still listed keeps its own', () => {
  const before = createOperatorSessions({ tokens: [A, B] });
  const fromA = before.signIn(A)!;
  const fromB = before.signIn(B)!;
  const after = createOperatorSessions({ tokens: [B] });
  assert.not.ok(after.verify(fromA));
  assert.ok(after.verify(fromB));
});

test('no tokens: nobody signs in', () => {
  const sessions = createOperatorSessions({ tokens: [] });
  assert.is(sessions.signIn(A), undefined);
  assert.not.ok(sessions.verify('1.abc'));
});

test.run();
