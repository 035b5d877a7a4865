import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isPrivateHost, plaintextRefusal } from './plaintext-guard.ts';

test('loopback, RFC 1918, link-local, fc00::/7 and local names are private', () => {
  for (const host of [
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.20',
    '169.254.169.254',
    '[::1]',
    '[fd12:3456::1]',
    '[fc00::1]',
    '[fe80::1]',
    '[::ffff:192.168.1.1]',
    'localhost',
    'LOCALHOST',
    'api.localhost',
    'backend',
    'printer.local',
    'nas.home.arpa',
    'db.internal',
  ]) {
    assert.ok(isPrivateHost(host), host);
  }
});

test('public addresses and any dotted name are public (names are not resolved)', () => {
  for (const host of [
    '8.8.8.8',
    '172.32.0.1',
    '192.169.0.1',
    '100.64.0.1',
    '[2001:db8::1]',
    '[::ffff:8.8.8.8]',
    'backend.example.com',
    'localhost.example.com',
    '10.0.0.1.nip.io',
  ]) {
    assert.not.ok(isPrivateHost(host), host);
  }
});

test('the refusal: a token, ws:// and a public host, unless allowed; names the override, not the token', () => {
  const publicWs = 'ws://backend.example.com:8443/api/device/socket';
  const reason = plaintextRefusal(publicWs, { hasToken: true, allowed: false });
  assert.is(
    reason,
    'BACKEND_URL is plain http:// to backend.example.com, a public address: the device token would cross the ' +
      'network in the clear; use https://, or set DEVICE_ALLOW_PLAINTEXT=1 if the network is private anyway',
  );
  assert.is(plaintextRefusal(publicWs, { hasToken: true, allowed: true }), undefined);
  assert.is(plaintextRefusal(publicWs, { hasToken: false, allowed: false }), undefined);
  assert.is(
    plaintextRefusal('wss://backend.example.com/api/device/socket', { hasToken: true, allowed: false }),
    undefined,
  );
  assert.is(plaintextRefusal('ws://10.0.0.5:3001/api/device/socket', { hasToken: true, allowed: false }), undefined);
});

test.run();
