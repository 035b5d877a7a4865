import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readConfig } from './config.ts';
import { configError } from '../test/support/config-error.ts';

test('defaults: port 3000, every interface, backend :3001, device :3003, 1500 ms probes', () => {
  assert.equal(readConfig({}), {
    port: 3000,
    httpsPort: undefined,
    httpsPublishedPort: undefined,
    host: undefined,
    backendUrl: 'http://localhost:3001',
    deviceUrl: 'http://localhost:3003',
    timeoutMs: 1500,
    access: { tokens: [] },
    backendReadToken: undefined,
    metricsPort: 9466,
  });
});

test('every setting is read', () => {
  const settings = readConfig(
    {
      PORT: '8080',
      HTTPS_PORT: '8443',
      HTTPS_PUBLISHED_PORT: '443',
      HOST: '127.0.0.1',
      BACKEND_URL: 'http://backend:3001',
      DEVICE_URL: 'https://device.example:8443/prefix',
      STATUS_TIMEOUT_MS: '800',
      OPERATOR_TOKENS_FILE: '/run/secrets/operator-tokens',
      BACKEND_READ_TOKEN_FILE: '/run/secrets/read-token',
      METRICS_PORT: '9100',
    },
    (path) =>
      ({
        '/run/secrets/operator-tokens': 'operator-one-0123456789\noperator-two-0123456789\n',
        '/run/secrets/read-token': 'read-token-0123456789abc\n',
      })[path]!,
  );
  assert.equal(settings, {
    port: 8080,
    httpsPort: 8443,
    httpsPublishedPort: 443,
    host: '127.0.0.1',
    backendUrl: 'http://backend:3001',
    deviceUrl: 'https://device.example:8443/prefix',
    timeoutMs: 800,
    access: { tokens: ['operator-one-0123456789', 'operator-two-0123456789'] },
    backendReadToken: 'read-token-0123456789abc',
    metricsPort: 9100,
  });
});

test("the management port defaults to 9466, past the backend's and the device's; off or local: none", () => {
  assert.is(readConfig({ METRICS: 'off' }).metricsPort, undefined);
  assert.is(readConfig({ NODE_ENV: 'local' }).metricsPort, undefined);
  assert.is(readConfig({ NODE_ENV: 'local', METRICS_PORT: '9100' }).metricsPort, 9100);
  assert.is(readConfig({ METRICS_PORT: '0' }).metricsPort, 0);
  assert.throws(() => readConfig({ METRICS: 'maybe' }), /METRICS=maybe is not valid/);
});

test('local mode is open to everyone: no sign-in', () => {
  assert.is(readConfig({ NODE_ENV: 'local', OPERATOR_TOKENS: 'operator-one-0123456789' }).access, 'open');
});

test('an empty DEVICE_URL disables the device panel; an empty BACKEND_URL means the default', () => {
  assert.is(readConfig({ DEVICE_URL: '' }).deviceUrl, undefined);
  assert.is(readConfig({ DEVICE_URL: '  ' }).deviceUrl, undefined);
  assert.is(readConfig({ BACKEND_URL: '' }).backendUrl, 'http://localhost:3001');
});

test('bad values are one-line ConfigErrors that name the variable and the value', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: 'http' }, /^PORT=http is not valid/],
    [{ PORT: '70000' }, /^PORT=70000 is not valid/],
    [{ HTTPS_PORT: 'https' }, /^HTTPS_PORT=https is not valid/],
    [{ HTTPS_PUBLISHED_PORT: '-1' }, /^HTTPS_PUBLISHED_PORT=-1 is not valid/],
    [{ BACKEND_URL: 'backend:3001' }, /^BACKEND_URL=backend:3001 is not valid: expected a http: or https: URL/],
    [{ DEVICE_URL: 'not a url' }, /^DEVICE_URL=not a url is not valid/],
    [{ STATUS_TIMEOUT_MS: '0' }, /^STATUS_TIMEOUT_MS=0 is not valid: expected a whole number from 50 to 60000/],
  ];
  for (const [env, message] of cases)
    assert.match(
      configError(() => readConfig(env)),
      message,
      JSON.stringify(env),
    );
});

test.run();
