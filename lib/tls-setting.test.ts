import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readTlsFiles } from './tls-setting.ts';
import { configError as message } from '../test/support/config-error.ts';
import { createTestCa } from '../test/support/test-ca.ts';

const ca = createTestCa();
const one = ca.issue('one');
const other = ca.issue('other');

test('neither setting: plain HTTP (undefined)', () => {
  assert.is(readTlsFiles({}), undefined);
  assert.is(readTlsFiles({ TLS_CERT_FILE: ' ', TLS_KEY_FILE: '' }), undefined);
});

test('both: the two files as PEM text', () => {
  assert.equal(readTlsFiles({ TLS_CERT_FILE: one.certFile, TLS_KEY_FILE: one.keyFile }), {
    cert: one.cert,
    key: one.key,
  });
});

test('one without the other names both settings', () => {
  assert.is(
    message(() => readTlsFiles({ TLS_CERT_FILE: one.certFile })),
    'TLS_CERT_FILE is set but TLS_KEY_FILE is not: set both to serve HTTPS, or neither for plain HTTP',
  );
  assert.is(
    message(() => readTlsFiles({ TLS_KEY_FILE: one.keyFile })),
    'TLS_KEY_FILE is set but TLS_CERT_FILE is not: set both to serve HTTPS, or neither for plain HTTP',
  );
});

test('an unreadable file names the setting, not its value', () => {
  const missing = `${ca.dir}/no-such-secret-value.pem`;
  const text = message(() => readTlsFiles({ TLS_CERT_FILE: one.certFile, TLS_KEY_FILE: missing }));
  assert.is(text, 'TLS_KEY_FILE names a file that cannot be read: ENOENT');
});

test('a key that is not the certificate’s, or text that is no PEM, is refused without quoting it', () => {
  const mismatch = message(() => readTlsFiles({ TLS_CERT_FILE: one.certFile, TLS_KEY_FILE: other.keyFile }));
  assert.match(mismatch, /^TLS_CERT_FILE and TLS_KEY_FILE are not a certificate and its key: .*mismatch/);
  const swapped = message(() => readTlsFiles({ TLS_CERT_FILE: one.keyFile, TLS_KEY_FILE: one.certFile }));
  assert.match(swapped, /^TLS_CERT_FILE and TLS_KEY_FILE are not a certificate and its key: /);
  assert.not.ok(swapped.includes('PRIVATE KEY') || swapped.includes(one.key.slice(40, 80)), swapped);
});

test.after(() => ca.remove());
test.run();
