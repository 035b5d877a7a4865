import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readToken, readTokenList } from './secret-settings.ts';
import { configError } from '../test/support/config-error.ts';

const T1 = 'aaaaaaaaaaaaaaaa1111';
const T2 = 'bbbbbbbbbbbbbbbb2222';
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
  assert.is(short, 'OPS: token 1 is shorter than 16 characters');
  assert.not.ok(short.includes('short-one'));
  assert.is(
    configError(() => readTokenList({ OPS: T1, OPS_FILE: '/x' }, 'OPS')),
    'OPS and OPS_FILE are both set: set one of them',
  );
});

test('readToken wants exactly one', () => {
  assert.is(readToken({ READ_FILE: '/t' }, 'READ', files({ '/t': `${T1}\n` })), T1);
  assert.is(
    configError(() => readToken({ READ: `${T1},${T2}` }, 'READ')),
    'READ must hold exactly one token, found 2',
  );
});

test.run();
