import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readToken, readTokenList } from './secret-settings.ts';
import { configError } from '../test/support/config-error.ts';

const T1 = '5f0c2a9e41d87b36c0e9a4f21b7d5830';
const T2 = 'b8e1d64f0a2c97e35f1b0c8a6d4e2f97';
const files = (map: Record<string, string>) => (path: string) => {
  if (path in map) return map[path]!;
  throw Object.assign(new Error(`ENOENT: no such file, open '${path}'`), { code: 'ENOENT' });
};

test('a file: one token a line, comments and blank lines skipped', () => {
  const read = files({ '/run/secrets/ops': `# rotated 2026-01\n${T1}\n\n  ${T2}  \r\n` });
  assert.equal(readTokenList({ OPS_FILE: '/run/secrets/ops' }, 'OPS', read), [T1, T2]);
});

test('inline: comma-separated; neither set: undefined', () => {
  assert.equal(readTokenList({ OPS: `${T1},${T2}` }, 'OPS'), [T1, T2]);
  assert.is(readTokenList({}, 'OPS'), undefined);
});

test('errors name the setting, never the value', () => {
  const pasted = 'secret-token-pasted-into-the-path';
  const unreadable = configError(() => readTokenList({ OPS_FILE: pasted }, 'OPS', files({})));
  assert.is(unreadable, 'OPS_FILE names a file that cannot be read: ENOENT');
  const short = configError(() => readTokenList({ OPS: 'short-one' }, 'OPS'));
  assert.match(short, /^OPS: token 1 is too short: about \d+ bits, at least 128/);
  assert.not.ok(short.includes('short-one'));
  assert.is(
    configError(() => readTokenList({ OPS: T1, OPS_FILE: '/x' }, 'OPS')),
    'OPS and OPS_FILE are both set: set one of them',
  );
});

test('a weak token of each kind is a start-up error naming the setting and the rule, never the token', () => {
  const weak: [string, RegExp][] = [
    ['aaaaaaaaaaaaaaaa', /is one repeated character/],
    ['ab12ab12ab12ab12ab12ab12ab12ab12ab12', /has too few distinct characters \(4, at least 8;/],
    ['0123456789abcdef', /is too short: about 64 bits, at least 128/],
  ];
  for (const [token, rule] of weak) {
    const read = files({ '/run/secrets/ops': `${T1}\n${token}\n` });
    const line = configError(() => readTokenList({ OPS_FILE: '/run/secrets/ops' }, 'OPS', read));
    assert.match(line, /^OPS_FILE: token 2 /);
    assert.match(line, rule);
    assert.not.ok(line.includes(token), line);
    assert.match(
      configError(() => readToken({ READ: token }, 'READ')),
      /^READ: token 1 /,
    );
  }
});

test('readToken wants exactly one', () => {
  assert.is(readToken({ READ_FILE: '/t' }, 'READ', files({ '/t': `${T1}\n` })), T1);
  assert.is(
    configError(() => readToken({ READ: `${T1},${T2}` }, 'READ')),
    'READ must hold exactly one token, found 2',
  );
});

test.run();
