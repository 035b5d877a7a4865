import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parsePort, readEnvironment, readInteger, readPort, readSecret, readString, readUrl } from './env.ts';
import { configError as message } from '../test/support/config-error.ts';

test('defaults apply when a variable is unset or blank', () => {
  assert.is(readPort({}, 'PORT', 3001), 3001);
  assert.is(readPort({ PORT: '  ' }, 'PORT', 3001), 3001);
  assert.is(readInteger({}, 'SHUTDOWN_DELAY_MS', 0), 0);
  assert.is(readString({}, 'HOST'), undefined);
  assert.is(readUrl({}, 'BACKEND_URL', 'http://localhost:3001'), 'http://localhost:3001');
});

test('valid values are parsed', () => {
  assert.is(readPort({ PORT: '0' }, 'PORT', 3001), 0);
  assert.is(readPort({ PORT: '65535' }, 'PORT', 3001), 65535);
  assert.is(readInteger({ SHUTDOWN_DELAY_MS: '250' }, 'SHUTDOWN_DELAY_MS', 0), 250);
  assert.is(readUrl({ BACKEND_URL: 'http://[::1]:9/' }, 'BACKEND_URL', 'http://x'), 'http://[::1]:9/');
});

test('parsePort takes decimal digits up to 65535 and nothing Number() would also take', () => {
  assert.equal(['0', '80', '065535', '65535'].map(parsePort), [0, 80, 65535, 65535]);
  for (const raw of ['', ' 80', '0x10', '1e3', '+80', '-1', '80.0', '65536', '9'.repeat(400)]) {
    assert.is(parsePort(raw), undefined, JSON.stringify(raw));
  }
});

test('bad values name the variable and the value, on one line', () => {
  const cases: Array<[() => unknown, string]> = [
    [() => readPort({ PORT: 'abc' }, 'PORT', 3001), 'PORT=abc is not valid: expected a port number from 0 to 65535'],
    [
      () => readPort({ PORT: '70000' }, 'PORT', 3001),
      'PORT=70000 is not valid: expected a port number from 0 to 65535',
    ],
    [() => readPort({ PORT: '-1' }, 'PORT', 3001), 'PORT=-1 is not valid: expected a port number from 0 to 65535'],
    [() => readPort({ PORT: '80.5' }, 'PORT', 3001), 'PORT=80.5 is not valid: expected a port number from 0 to 65535'],
    [
      () => readInteger({ SERIAL_BAUD_RATE: 'fast' }, 'SERIAL_BAUD_RATE', 9600, { min: 1 }),
      'SERIAL_BAUD_RATE=fast is not valid: expected a whole number from 1 to',
    ],
    [() => readInteger({ SHUTDOWN_DELAY_MS: '-5' }, 'SHUTDOWN_DELAY_MS', 0), 'SHUTDOWN_DELAY_MS=-5 is not valid'],
    [
      () => readUrl({ BACKEND_URL: 'not a url' }, 'BACKEND_URL', 'http://localhost:3001'),
      'BACKEND_URL=not a url is not valid: expected a URL such as http://localhost:3001',
    ],
    [
      () => readUrl({ BACKEND_URL: 'ftp://u:S3cret@x' }, 'BACKEND_URL', 'http://localhost:3001'),
      'BACKEND_URL=ftp://u:***@x is not valid: expected a http: or https: URL',
    ],
    [
      () => readUrl({ BACKEND_URL: 'http://u:S3cret@[x' }, 'BACKEND_URL', 'http://localhost:3001'),
      'BACKEND_URL=http://u:***@[x is not valid: expected a URL such as http://localhost:3001',
    ],
    [
      () => readUrl({ BACKEND_URL: 'ftp://x' }, 'BACKEND_URL', 'http://localhost:3001'),
      'BACKEND_URL=ftp://x is not valid: expected a http: or https: URL',
    ],
  ];
  for (const [fn, expected] of cases) {
    const text = message(fn);
    assert.ok(text.startsWith(expected), `${text} should start with ${expected}`);
    assert.not.match(text, '\n');
  }
});

test('NODE_ENV defaults to production', () => {
  assert.is(readEnvironment({}), 'production');
  assert.is(readEnvironment({ NODE_ENV: 'local' }), 'local');
});

const files: Record<string, string> = {
  '/run/secrets/token': 'from-the-file-0123456789\n',
  '/run/secrets/blank': ' \n',
};
const fakeRead = (path: string) => {
  if (path in files) return files[path]!;
  throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
};

test('readSecret: X inline, X_FILE a file (trimmed), neither undefined', () => {
  assert.is(readSecret({}, 'READ_TOKENS', fakeRead), undefined);
  assert.equal(readSecret({ READ_TOKENS: ' inline-secret ' }, 'READ_TOKENS', fakeRead), {
    value: 'inline-secret',
    setting: 'READ_TOKENS',
  });
  assert.equal(readSecret({ READ_TOKENS_FILE: '/run/secrets/token' }, 'READ_TOKENS', fakeRead), {
    value: 'from-the-file-0123456789',
    setting: 'READ_TOKENS_FILE',
  });
});

test('readSecret: errors name the setting, never a value', () => {
  const pasted = 'a-token-pasted-into-the-file-setting';
  const cases: Array<[Record<string, string>, string]> = [
    [{ X: 'inline', X_FILE: '/run/secrets/token' }, 'X and X_FILE are both set: set one of them'],
    [{ X_FILE: pasted }, 'X_FILE names a file that cannot be read: ENOENT'],
    [{ X_FILE: '/run/secrets/blank' }, 'X_FILE names an empty file: write the secret into it'],
  ];
  for (const [env, expected] of cases) {
    const text = message(() => readSecret(env, 'X', fakeRead));
    assert.is(text, expected);
    assert.not.ok(text.includes(pasted) || text.includes('/run/secrets') || text.includes('inline'), text);
  }
});

test.run();
