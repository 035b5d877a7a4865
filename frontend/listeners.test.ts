import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planListeners } from './listeners.ts';
import { configError } from '../test/support/config-error.ts';

const TLS = { cert: 'cert pem', key: 'key pem' };

test('without HTTPS_PORT: PORT alone, over HTTPS when the TLS files are set', () => {
  assert.equal(planListeners(3000, undefined, undefined), [{ setting: 'PORT', port: 3000, tls: undefined }]);
  assert.equal(planListeners(3000, undefined, TLS), [{ setting: 'PORT', port: 3000, tls: TLS }]);
});

test('HTTPS_PORT: plain PORT and HTTPS beside it', () => {
  assert.equal(planListeners(3000, 3443, TLS), [
    { setting: 'PORT', port: 3000 },
    { setting: 'HTTPS_PORT', port: 3443, tls: TLS },
  ]);
  // Port 0 twice is two free ports, not a clash.
  assert.is(planListeners(0, 0, TLS).length, 2);
});

test('HTTPS_PORT without the TLS files, or on PORT itself: one line naming the settings', () => {
  assert.is(
    configError(() => planListeners(3000, 3443, undefined)),
    'HTTPS_PORT is set but TLS_CERT_FILE and TLS_KEY_FILE are not: set both to serve HTTPS, or unset HTTPS_PORT',
  );
  assert.is(
    configError(() => planListeners(3000, 3000, TLS)),
    'HTTPS_PORT and PORT are both 3000: HTTPS needs a port of its own',
  );
});

test.run();
