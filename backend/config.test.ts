import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readConfig } from './config.ts';
import { configError } from '../test/support/config-error.ts';

test('defaults: port 3001, every interface, production, a local database, no device token', () => {
  assert.equal(readConfig({}), {
    port: 3001,
    host: undefined,
    environment: 'production',
    logLevel: 'info',
    mongodbUri: 'mongodb://localhost:27017/app',
    deviceToken: undefined,
    deviceTokens: undefined,
    deviceSocketsMax: 1000,
    deviceSocketsPerToken: 4,
    shutdownDelayMs: 0,
    readTokens: undefined,
  });
});

test('reads every setting', () => {
  assert.equal(
    readConfig({
      PORT: '4001',
      HOST: '127.0.0.1',
      NODE_ENV: 'local',
      LOG_LEVEL: 'debug',
      MONGODB_URI: 'mongodb+srv://cluster.example.net/shop',
      DEVICE_TOKEN: ' 0123456789abcdef0123\n',
      DEVICE_TOKENS: 'dev-1:0123456789abcdef-one',
      DEVICE_SOCKETS_MAX: '5',
      DEVICE_SOCKETS_PER_TOKEN: '2',
      SHUTDOWN_DELAY_MS: '2500',
      READ_TOKENS: 'read-token-one-0123456789, read-token-two-0123456789',
    }),
    {
      port: 4001,
      host: '127.0.0.1',
      environment: 'local',
      logLevel: 'debug',
      mongodbUri: 'mongodb+srv://cluster.example.net/shop',
      deviceToken: '0123456789abcdef0123',
      deviceTokens: new Map([['dev-1', '0123456789abcdef-one']]),
      deviceSocketsMax: 5,
      deviceSocketsPerToken: 2,
      shutdownDelayMs: 2500,
      readTokens: ['read-token-one-0123456789', 'read-token-two-0123456789'],
    },
  );
});

const rejects = (env: Record<string, string>, message: RegExp) =>
  assert.match(
    configError(() => readConfig(env)),
    message,
  );

test('bad values are one-line ConfigErrors naming the variable', () => {
  rejects({ PORT: 'http' }, /^PORT=http is not valid: expected a port number/);
  rejects(
    { SHUTDOWN_DELAY_MS: '60001' },
    /^SHUTDOWN_DELAY_MS=60001 is not valid: expected a whole number from 0 to 60000$/,
  );
  rejects({ DEVICE_SOCKETS_MAX: '0' }, /^DEVICE_SOCKETS_MAX=0 is not valid: expected a whole number from 1 to 100000$/);
  rejects(
    { DEVICE_SOCKETS_PER_TOKEN: '0' },
    /^DEVICE_SOCKETS_PER_TOKEN=0 is not valid: expected a whole number from 1 to 100000$/,
  );
  rejects({ DEVICE_TOKEN: 'short' }, /^DEVICE_TOKEN is too short/);
  rejects({ MONGODB_URI: 'localhost:27017' }, /^MONGODB_URI=localhost:27017 is not valid: expected mongodb:\/\/host/);
});

test('a rejected MONGODB_URI is reported without its password', () => {
  const message = configError(() => readConfig({ MONGODB_URI: 'postgres://app:hunter2secret@db/app' }));
  assert.not.match(message, /hunter2secret/);
  assert.match(message, /^MONGODB_URI=\S+ is not valid/);
});

test('a MONGODB_URI the driver refuses is a one-line ConfigError in its words, without the password', () => {
  const cases: [string, RegExp][] = [
    [
      'mongodb://db/app?foo=bar',
      /^MONGODB_URI=mongodb:\/\/db\/app\?foo=bar is not valid: option foo is not supported$/,
    ],
    ['mongodb://db:99999/app', /^MONGODB_URI=mongodb:\/\/db:99999\/app is not valid: Unable to parse db:99999/],
    ['mongodb://db/app?tls=maybe', /is not valid: tls\/ssl must be either "true" or "false"$/],
    ['mongodb://db/app?replicaSet=', /is not valid: URI option "replicaSet" cannot be specified with no value$/],
    [
      'mongodb://app:hunter2:secret@db/app',
      /^MONGODB_URI=mongodb:\/\/app:\*\*\*@db\/app is not valid: Password contains/,
    ],
    [
      'mongodb://app:hunter2/secret@db/app',
      /^MONGODB_URI=mongodb:\/\/app:\*\*\*@db\/app is not valid: Password contains/,
    ],
    [
      'mongodb://u%zz:hunter2secret@db/app',
      /^MONGODB_URI=mongodb:\/\/u%zz:\*\*\*@db\/app is not valid: URI malformed$/,
    ],
    [
      'mongodb://db/app?proxyHost=p&proxyPassword=hunter2secret',
      /^MONGODB_URI=mongodb:\/\/db\/app\?proxyHost=p&proxyPassword=\*\*\* is not valid: Can only specify both/,
    ],
  ];
  for (const [uri, expected] of cases) {
    const message = configError(() => readConfig({ MONGODB_URI: uri }));
    assert.match(message, expected, uri);
    assert.not.match(message, /hunter2|secret/, uri);
  }
});

test('DEVICE_TOKEN_FILE and MONGODB_URI_FILE: the secrets from mounted files', () => {
  const files: Record<string, string> = {
    '/run/secrets/device-token': 'Zq7Wk0aB3xY9-device-token\n',
    '/run/secrets/mongodb-uri': 'mongodb://app:s3cret@db:27017/shop\n',
  };
  const config = readConfig(
    { DEVICE_TOKEN_FILE: '/run/secrets/device-token', MONGODB_URI_FILE: '/run/secrets/mongodb-uri' },
    (path) => files[path]!,
  );
  assert.is(config.deviceToken, 'Zq7Wk0aB3xY9-device-token');
  assert.is(config.mongodbUri, 'mongodb://app:s3cret@db:27017/shop');
  const short = configError(() => readConfig({ DEVICE_TOKEN_FILE: '/t' }, () => 'short-token\n'));
  assert.match(short, /^DEVICE_TOKEN_FILE is too short \(11 characters\)/);
});

test.run();
