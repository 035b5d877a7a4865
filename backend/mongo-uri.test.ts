import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseName, redactUri, scrubSecrets } from './mongo-uri.ts';

test('redactUri: the password becomes ***, the user, hosts, path and options stay', () => {
  const cases: [string, string][] = [
    ['mongodb://app:s3cret@db:27017/shop', 'mongodb://app:***@db:27017/shop'],
    [
      'mongodb+srv://app:s3cret@cluster0.example.net/shop?retryWrites=true',
      'mongodb+srv://app:***@cluster0.example.net/shop?retryWrites=true',
    ],
    ['MONGODB://app:s3cret@db/shop', 'MONGODB://app:***@db/shop'],
    // Several hosts: new URL cannot parse this, the redaction still applies.
    [
      'mongodb://app:s3cret@a:27017,b:27017,c:27017/shop?replicaSet=rs0',
      'mongodb://app:***@a:27017,b:27017,c:27017/shop?replicaSet=rs0',
    ],
    // Percent-encoded special characters, and an unencoded `@` the driver would refuse: all of it is hidden.
    ['mongodb://app:p%40ss%3Aw%2Fd@db/shop', 'mongodb://app:***@db/shop'],
    ['mongodb://app:p@ss:w@db/shop', 'mongodb://app:***@db/shop'],
    ['mongodb://app:@db/shop', 'mongodb://app:***@db/shop'],
    // A rejected MONGODB_URI of another scheme is quoted in the error: it is redacted too.
    ['postgres://app:s3cret@db/shop', 'postgres://app:***@db/shop'],
  ];
  for (const [uri, expected] of cases) assert.is(redactUri(uri), expected, uri);
});

test('redactUri: a URI without a password is unchanged, user or not', () => {
  for (const uri of [
    'mongodb://db:27017/shop',
    'mongodb://app@db/shop?authMechanism=MONGODB-X509',
    'mongodb+srv://cluster0.example.net/',
    'not a uri',
  ]) {
    assert.is(redactUri(uri), uri);
  }
  // An `@` in the query (an option value) is not userinfo.
  assert.is(redactUri('mongodb://db/shop?appName=a@b'), 'mongodb://db/shop?appName=a@b');
});

test('scrubSecrets: the password disappears from a driver message, raw and decoded', () => {
  const uri = 'mongodb://app:p%40ss%2Fw0rd@db:27017/shop';
  const message =
    'connect failed for mongodb://app:p%40ss%2Fw0rd@db:27017/shop: ' +
    'auth failed for user app with password p@ss/w0rd';
  const scrubbed = scrubSecrets(message, uri);
  assert.not.ok(scrubbed.includes('p%40ss%2Fw0rd'), scrubbed);
  assert.not.ok(scrubbed.includes('p@ss/w0rd'), scrubbed);
  assert.is(scrubbed, 'connect failed for mongodb://app:***@db:27017/shop: auth failed for user app with password ***');
});

test('scrubSecrets: srv URIs, and a password with an unencoded @', () => {
  assert.is(
    scrubSecrets(
      'querySrv ENOTFOUND _mongodb._tcp.cluster0 (mongodb+srv://app:hunter2@cluster0/x)',
      'mongodb+srv://app:hunter2@cluster0/x',
    ),
    'querySrv ENOTFOUND _mongodb._tcp.cluster0 (mongodb+srv://app:***@cluster0/x)',
  );
  assert.is(
    scrubSecrets('bad uri mongodb://app:p@ss@db/x', 'mongodb://app:p@ss@db/x'),
    'bad uri mongodb://app:***@db/x',
  );
});

test('scrubSecrets: without a password the text is unchanged', () => {
  for (const uri of ['mongodb://db/shop', 'mongodb://app@db/shop', 'mongodb://app:@db/shop', 'nonsense']) {
    assert.is(scrubSecrets('connect ECONNREFUSED 127.0.0.1:27017', uri), 'connect ECONNREFUSED 127.0.0.1:27017', uri);
  }
});

test('databaseName: the path, decoded, or the driver default; a bad escape is not a crash', () => {
  assert.is(databaseName('mongodb://db/shop'), 'shop');
  assert.is(databaseName('mongodb://app:s3cret@db:27017/my%20shop?authSource=admin'), 'my shop');
  assert.is(databaseName('mongodb+srv://cluster0.example.net/'), 'test');
  assert.is(databaseName('mongodb://db'), 'test');
  assert.is(databaseName('mongodb://db/100%'), '100%');
});

test.run();
