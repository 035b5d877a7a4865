import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DEVICE_METRICS_PORT_DEFAULT, readConfig } from './config.ts';
import { METRICS_PORT_DEFAULT, readMetricsPort } from '../lib/metrics-setting.ts';
import { isDeviceId } from '../lib/device-protocol.ts';
import { configError } from '../test/support/config-error.ts';

test('local mode needs nothing and uses the documented defaults', () => {
  assert.equal(readConfig({ NODE_ENV: 'local' }), {
    port: 3003,
    host: undefined,
    environment: 'local',
    logLevel: 'info',
    socketUrl: 'ws://localhost:3001/api/device/socket',
    serialPath: undefined,
    baudRate: 9600,
    deviceId: hostname(),
    deviceToken: undefined,
    backendCa: undefined,
    shutdownDelayMs: 0,
    spoolDir: join(process.cwd(), 'spool'),
    spoolMaxBytes: 64 * 1024 * 1024,
  });
  assert.is(readConfig({ NODE_ENV: 'local' }, '/app').spoolDir, '/app/spool', 'under the working directory');
});

test("the management port defaults to 9465, not the backend's 9464: both run on one host", () => {
  assert.is(readMetricsPort({}, 'production', DEVICE_METRICS_PORT_DEFAULT), 9465);
  assert.is.not(DEVICE_METRICS_PORT_DEFAULT, METRICS_PORT_DEFAULT);
  assert.is(readMetricsPort({ METRICS_PORT: '9100' }, 'production', DEVICE_METRICS_PORT_DEFAULT), 9100);
  assert.is(readMetricsPort({}, 'local', DEVICE_METRICS_PORT_DEFAULT), undefined);
});

test('reads every setting', () => {
  const config = readConfig(
    {
      NODE_ENV: 'production',
      PORT: '4003',
      HOST: '127.0.0.1',
      BACKEND_URL: 'https://backend.internal:8443',
      SERIAL_PATH: '/dev/ttyUSB0',
      SERIAL_BAUD_RATE: '115200',
      DEVICE_ID: 'bench-7',
      SHUTDOWN_DELAY_MS: '5000',
      LOG_LEVEL: 'debug',
      DEVICE_TOKEN: ' 0123456789abcdef0123\n',
      DEVICE_SPOOL_DIR: 'var/spool',
      DEVICE_SPOOL_MAX_BYTES: '1048576',
    },
    '/srv/device',
  );
  assert.is(config.port, 4003);
  assert.is(config.host, '127.0.0.1');
  assert.is(config.socketUrl, 'wss://backend.internal:8443/api/device/socket');
  assert.is(config.serialPath, '/dev/ttyUSB0');
  assert.is(config.baudRate, 115200);
  assert.is(config.deviceId, 'bench-7');
  assert.is(config.shutdownDelayMs, 5000);
  assert.is(config.logLevel, 'debug');
  assert.is(config.deviceToken, '0123456789abcdef0123', 'surrounding whitespace is trimmed');
  assert.is(config.spoolDir, '/srv/device/var/spool', 'a relative DEVICE_SPOOL_DIR is resolved against the cwd');
  assert.is(config.spoolMaxBytes, 1048576);
  assert.is(readConfig({ NODE_ENV: 'local', DEVICE_SPOOL_DIR: '/data/spool' }).spoolDir, '/data/spool');
});

const rejects = (env: Record<string, string>, message: RegExp) =>
  assert.match(
    configError(() => readConfig(env)),
    message,
  );

test('bad values are one-line ConfigErrors naming the variable', () => {
  rejects({ NODE_ENV: 'production' }, /^SERIAL_PATH is not set/);
  rejects({}, /^SERIAL_PATH is not set/); // unset NODE_ENV means production
  rejects({ NODE_ENV: 'local', SERIAL_BAUD_RATE: 'fast' }, /^SERIAL_BAUD_RATE=fast is not valid/);
  rejects({ NODE_ENV: 'local', PORT: '70000' }, /^PORT=70000 is not valid/);
  rejects({ NODE_ENV: 'local', BACKEND_URL: 'backend:3001' }, /^BACKEND_URL=backend:3001 is not valid/);
  rejects({ NODE_ENV: 'local', SHUTDOWN_DELAY_MS: 'soon' }, /^SHUTDOWN_DELAY_MS=soon is not valid/);
  rejects(
    { NODE_ENV: 'local', DEVICE_SPOOL_MAX_BYTES: '64MiB' },
    /^DEVICE_SPOOL_MAX_BYTES=64MiB is not valid: expected a whole number from 1048576 to/,
  );
  rejects({ NODE_ENV: 'local', DEVICE_SPOOL_MAX_BYTES: '1000' }, /^DEVICE_SPOOL_MAX_BYTES=1000 is not valid/);
});

test('a bad DEVICE_TOKEN is a one-line ConfigError that never quotes the token', () => {
  const cases: Array<[string, RegExp]> = [
    ['short-secret', /^DEVICE_TOKEN is too short \(12 characters\): use at least 16/],
    ['0123456789 abcdef', /^DEVICE_TOKEN is not valid: it contains whitespace/],
    ['0123456789\nabcdef', /^DEVICE_TOKEN is not valid: it contains whitespace/],
    ['0123456789abcdef"', /^DEVICE_TOKEN is not valid: use letters, digits/],
  ];
  for (const [token, message] of cases) {
    const text = configError(() => readConfig({ NODE_ENV: 'local', DEVICE_TOKEN: token }));
    assert.match(text, message);
    assert.not.ok(text.includes(token.trim().slice(0, 10)), 'the message quotes the token');
  }
  assert.is(readConfig({ NODE_ENV: 'local', DEVICE_TOKEN: ' \n ' }).deviceToken, undefined, 'blank is unset');
});

test('a DEVICE_ID the protocol refuses is a one-line error at start-up, under the same rule as the backend', () => {
  assert.is(readConfig({ NODE_ENV: 'local', DEVICE_ID: 'd'.repeat(256) }).deviceId, 'd'.repeat(256));
  assert.is(readConfig({ NODE_ENV: 'local', DEVICE_ID: 'Kitchen_1.a-b' }).deviceId, 'Kitchen_1.a-b');
  const rule = "expected letters, digits, '.', '_' and '-', 1 to 256 characters (the backend refuses any other id)";
  assert.is(
    configError(() => readConfig({ NODE_ENV: 'local', DEVICE_ID: 'Küche 1' })),
    `DEVICE_ID="Küche 1" is not valid: ${rule}`,
  );
  assert.is(
    configError(() => readConfig({ NODE_ENV: 'local', DEVICE_ID: 'd'.repeat(257) })),
    `DEVICE_ID=257 characters is not valid: ${rule}`,
  );
  for (const id of ['a b', 'a/b', 'a:b', 'dev\u00e9', 'a\nb']) {
    assert.ok(isDeviceId(id) === false, `the protocol refuses ${JSON.stringify(id)}`);
    assert.match(
      configError(() => readConfig({ NODE_ENV: 'local', DEVICE_ID: id })),
      /^DEVICE_ID=".*" is not valid/,
    );
  }
});

test('BACKEND_URL behind a path prefix keeps it for the socket, as the frontend and the smoke keep it', () => {
  const socket = (url: string) => readConfig({ NODE_ENV: 'local', BACKEND_URL: url }).socketUrl;
  assert.is(socket('https://gw.example/backend/'), 'wss://gw.example/backend/api/device/socket');
  assert.is(socket('https://gw.example/backend'), 'wss://gw.example/backend/api/device/socket');
  assert.is(socket('http://10.0.0.2:3001'), 'ws://10.0.0.2:3001/api/device/socket');
});

test('a token over plain http:// to a public host is refused in one line naming DEVICE_ALLOW_PLAINTEXT', () => {
  const env = { NODE_ENV: 'local', DEVICE_TOKEN: '0123456789abcdef0123', BACKEND_URL: 'http://203.0.113.9:8443' };
  const text = configError(() => readConfig(env));
  assert.ok(text.startsWith('BACKEND_URL is plain http:// to 203.0.113.9, a public address'), text);
  assert.ok(text.includes('DEVICE_ALLOW_PLAINTEXT=1'), text);
  assert.not.ok(text.includes('0123456789abcdef0123'), 'never the token');
  assert.is(readConfig({ ...env, DEVICE_ALLOW_PLAINTEXT: '1' }).socketUrl, 'ws://203.0.113.9:8443/api/device/socket');
  assert.is(readConfig({ ...env, BACKEND_URL: 'https://203.0.113.9:8443' }).socketUrl.slice(0, 6), 'wss://');
  assert.is(
    configError(() => readConfig({ ...env, DEVICE_ALLOW_PLAINTEXT: 'yes' })),
    'DEVICE_ALLOW_PLAINTEXT=yes is not valid: expected 1 or 0',
  );
});

test('BACKEND_CA_FILE: an unreadable file or one without a certificate names the setting', () => {
  const env = { NODE_ENV: 'local' };
  assert.is(
    configError(() => readConfig({ ...env, BACKEND_CA_FILE: '/no/such/ca.pem' })),
    'BACKEND_CA_FILE names a file that cannot be read: ENOENT',
  );
  assert.is(
    configError(() => readConfig({ ...env, BACKEND_CA_FILE: '/etc/hostname' })),
    'BACKEND_CA_FILE holds no PEM certificate: expected -----BEGIN CERTIFICATE-----',
  );
});

test.run();
