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

test('by default a session lasts twelve hours, a working day', () => {
  let now = 0;
  const sessions = createOperatorSessions({ tokens: [A], now: () => now });
  const cookie = sessions.signIn(A)!;
  now = 12 * 60 * 60 * 1000 - 1;
  assert.ok(sessions.verify(cookie));
  now += 1;
  assert.not.ok(sessions.verify(cookie));
});

test('a forged, altered or stretched cookie does not verify', () => {
  const sessions = createOperatorSessions({ tokens: [A] });
  const cookie = sessions.signIn(A)!;
  // The old design's shape, a far expiry with any signature, is nobody's session.
  for (const bad of [undefined, '', 'garbage', `${cookie}x`, cookie.slice(0, -1), `${Date.now() + 1e9}.AAAA`]) {
    assert.not.ok(sessions.verify(bad), String(bad));
  }
  assert.ok(sessions.verify(cookie));
});

test('sign-out ends that session only: the same cookie replayed is a stranger', () => {
  const sessions = createOperatorSessions({ tokens: [A, B] });
  const mine = sessions.signIn(A)!;
  const other = sessions.signIn(A)!;
  assert.is.not(mine, other);
  sessions.signOut(mine);
  assert.not.ok(sessions.verify(mine));
  assert.ok(sessions.verify(other));
  sessions.signOut(undefined);
  sessions.signOut('garbage');
  assert.ok(sessions.verify(other));
});

test('a restart ends every session, so a token removed from the list keeps none', () => {
  const before = createOperatorSessions({ tokens: [A, B] });
  const fromA = before.signIn(A)!;
  const fromB = before.signIn(B)!;
  const after = createOperatorSessions({ tokens: [B] });
  assert.not.ok(after.verify(fromA));
  assert.not.ok(after.verify(fromB));
  assert.is(after.signIn(A), undefined);
  assert.ok(after.verify(after.signIn(B)));
});

test("a reload without a token ends that token's sessions only, and it signs in no more; a new one does", () => {
  const sessions = createOperatorSessions({ tokens: [A, B] });
  const fromA = [sessions.signIn(A)!, sessions.signIn(A)!];
  const fromB = sessions.signIn(B)!;
  const C = 'operator-token-c-0a1b2c3d4e5f6789';
  assert.is(sessions.setTokens([B, C]), 2);
  for (const cookie of fromA) assert.not.ok(sessions.verify(cookie));
  assert.ok(sessions.verify(fromB));
  assert.is(sessions.signIn(A), undefined);
  assert.ok(sessions.verify(sessions.signIn(C)));
  // The same list again ends nothing; a token listed again does not bring its ended sessions back.
  assert.is(sessions.setTokens([B, C]), 0);
  assert.is(sessions.setTokens([A, B, C]), 0);
  assert.not.ok(sessions.verify(fromA[0]));
  assert.ok(sessions.verify(fromB));
  assert.is(sessions.setTokens([]), 2);
  assert.not.ok(sessions.verify(fromB));
});

test('past the bound the oldest session ends first', () => {
  const sessions = createOperatorSessions({ tokens: [A], maxSessions: 2 });
  const [first, second, third] = [sessions.signIn(A)!, sessions.signIn(A)!, sessions.signIn(A)!];
  assert.not.ok(sessions.verify(first));
  assert.ok(sessions.verify(second));
  assert.ok(sessions.verify(third));
});

test('no tokens: nobody signs in', () => {
  const sessions = createOperatorSessions({ tokens: [] });
  assert.is(sessions.signIn(A), undefined);
  assert.not.ok(sessions.verify('1.abc'));
});

test.run();
