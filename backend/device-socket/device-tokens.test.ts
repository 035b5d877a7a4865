import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readDeviceTokens } from './device-tokens.ts';
import { configError } from '../../test/support/config-error.ts';

const A = 'aaaaaaaaaaaaaaaa-token-a';
const B = 'bbbbbbbbbbbbbbbb-token-b';
const read = (env: Record<string, string>, shared?: string, files: Record<string, string> = {}) =>
  readDeviceTokens(env, shared, (path) => {
    if (path in files) return files[path]!;
    throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
  });
const rejects = (env: Record<string, string>, message: RegExp, shared?: string) => {
  const text = configError(() => read(env, shared));
  assert.match(text, message);
  for (const token of [A, B, shared].filter(Boolean)) assert.not.ok(text.includes(token!), `quotes a token: ${text}`);
  return text;
};

test('unset or blank: undefined', () => {
  assert.is(read({}), undefined);
  assert.is(read({ DEVICE_TOKENS: ' \n' }), undefined);
});

test('pairs separated by commas, spaces or newlines; a deviceId of letters, digits, . _ -', () => {
  assert.equal(
    read({ DEVICE_TOKENS: ` dev-a:${A}, plant.line_2:${B}\n` }),
    new Map([
      ['dev-a', A],
      ['plant.line_2', B],
    ]),
  );
});

test('an entry the wrong way round, with the wrong separator, or a deviceId off the rule: its position only', () => {
  // Written token:device, the "device" would be the token: nothing of the entry is quoted.
  rejects({ DEVICE_TOKENS: `${A}:dev-a` }, /^DEVICE_TOKENS entry 1: the token is too short \(5 characters\)/);
  // `;` is no separator: one entry holding both pairs, refused whole.
  rejects({ DEVICE_TOKENS: `dev-a:${A};dev-b:${B}` }, /^DEVICE_TOKENS entry 1 is not deviceId:token /);
  rejects({ DEVICE_TOKENS: `plant:line-2:${B}` }, /^DEVICE_TOKENS entry 1 is not deviceId:token /);
  rejects({ DEVICE_TOKENS: `dev/a:${A}` }, /^DEVICE_TOKENS entry 1: the deviceId is not letters, digits/);
  rejects({ DEVICE_TOKENS: `dév:${A}` }, /^DEVICE_TOKENS entry 1: the deviceId is not letters, digits/);
  for (const entry of [`${A}:dev-a`, `dev-a:${A};dev-b:${B}`]) {
    const text = configError(() => read({ DEVICE_TOKENS: entry }));
    assert.not.ok(text.includes('dev-'), `quotes the entry: ${text}`);
  }
});

test('DEVICE_TOKENS_FILE: one pair per line, # comments, a trailing newline (a mounted Secret)', () => {
  const file = `# devices of hall 3\ndev-a:${A}\n\n  # spare\ndev-b:${B}\n`;
  assert.equal(
    read({ DEVICE_TOKENS_FILE: '/run/secrets/device-tokens' }, undefined, { '/run/secrets/device-tokens': file }),
    new Map([
      ['dev-a', A],
      ['dev-b', B],
    ]),
  );
});

test('a malformed pair, a duplicate deviceId, a short token: one line naming the entry, never the token', () => {
  rejects({ DEVICE_TOKENS: `dev-a:${A},${B}` }, /^DEVICE_TOKENS entry 2 is not deviceId:token /);
  rejects({ DEVICE_TOKENS: `dev-a:${A},:${B}` }, /^DEVICE_TOKENS entry 2 is not deviceId:token /);
  rejects({ DEVICE_TOKENS: `dev-a:${A},dev-b:` }, /^DEVICE_TOKENS entry 2 is not deviceId:token /);
  rejects(
    { DEVICE_TOKENS: `dev-a:${A},dev-b:${B},dev-a:${B}x` },
    /^DEVICE_TOKENS entry 3 names the device entry 1 names: one token per device$/,
  );
  rejects(
    { DEVICE_TOKENS: `dev-a:${A},dev-b:short-token` },
    /^DEVICE_TOKENS entry 2: the token is too short \(11 characters\): use at least 16 /,
  );
  rejects({ DEVICE_TOKENS: `dev-a:${A}é` }, /^DEVICE_TOKENS entry 1: the token is not valid: /);
  rejects(
    { DEVICE_TOKENS: `dev-a:${A},dev-b:${A}` },
    /^DEVICE_TOKENS entry 2 has the same token as entry 1: give each device its own token$/,
  );
  rejects({ DEVICE_TOKENS: `dev-a:${A}` }, /^DEVICE_TOKENS entry 1 has the same token as DEVICE_TOKEN/, A);
  rejects(
    { DEVICE_TOKENS: `${'d'.repeat(300)}:${A}` },
    /^DEVICE_TOKENS entry 1: the deviceId is not letters, digits, '\.', '_' and '-', 1 to 256 characters$/,
  );
});

test('both variables, an unreadable file, a file listing no device: one line each', () => {
  rejects({ DEVICE_TOKENS: `a:${A}`, DEVICE_TOKENS_FILE: '/x' }, /^DEVICE_TOKENS and DEVICE_TOKENS_FILE are both set/);
  rejects({ DEVICE_TOKENS_FILE: '/nope' }, /^DEVICE_TOKENS_FILE names a file that cannot be read: ENOENT$/);
  assert.match(
    configError(() => read({ DEVICE_TOKENS_FILE: '/empty' }, undefined, { '/empty': '# nothing yet\n' })),
    /^DEVICE_TOKENS_FILE lists no device: expected deviceId:token entries$/,
  );
});

test('tokens pasted into DEVICE_TOKENS_FILE by mistake are never echoed', () => {
  const text = configError(() => read({ DEVICE_TOKENS_FILE: `dev-a:${A}` }));
  assert.is(text, 'DEVICE_TOKENS_FILE names a file that cannot be read: ENOENT');
});

test.run();
