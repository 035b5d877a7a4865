import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { redactUrl, redactUrlsIn, scrubSecrets } from './redact-url.ts';

test('redactUrl: the password becomes ***, the user, hosts, path and options stay', () => {
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
    // Percent-encoded special characters, and unencoded `@`, `:`, `?` and `/`-free text the driver would refuse.
    ['mongodb://app:p%40ss%3Aw%2Fd@db/shop', 'mongodb://app:***@db/shop'],
    ['mongodb://app:p@ss:w@db/shop', 'mongodb://app:***@db/shop'],
    ['mongodb://app:p?ss#w@db/shop', 'mongodb://app:***@db/shop'],
    ['mongodb://app:hunter2/secret@db/shop', 'mongodb://app:***@db/shop'],
    ['mongodb://app:@db/shop', 'mongodb://app:***@db/shop'],
    // A rejected value of another scheme is quoted in the error: it is redacted too.
    ['postgres://app:s3cret@db/shop', 'postgres://app:***@db/shop'],
    ['http://user:pa55@frontend.example:3000/', 'http://user:***@frontend.example:3000/'],
    ['ws://device:pa55@backend:3001/api/device/socket', 'ws://device:***@backend:3001/api/device/socket'],
  ];
  for (const [url, expected] of cases) assert.is(redactUrl(url), expected, url);
});

test('redactUrl: query and fragment parameters named like a secret lose their value, the others stay', () => {
  const cases: [string, string][] = [
    [
      'mongodb://db/app?proxyHost=p&proxyUsername=u&proxyPassword=s3cret&tls=true',
      'mongodb://db/app?proxyHost=p&proxyUsername=u&proxyPassword=***&tls=true',
    ],
    [
      'mongodb://app:pw@db/app?tls=true&tlsCertificateKeyFilePassword=k3y%26pass',
      'mongodb://app:***@db/app?tls=true&tlsCertificateKeyFilePassword=***',
    ],
    [
      'mongodb://db/app?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:abc',
      'mongodb://db/app?authMechanism=MONGODB-AWS&authMechanismProperties=***',
    ],
    [
      'http://h/?TOKEN=a&api_key=b&client_secret=c&sig=d&page=2',
      'http://h/?TOKEN=***&api_key=***&client_secret=***&sig=***&page=2',
    ],
    ['http://h/x?X-Amz-Signature=abc&X-Amz-Credential=def', 'http://h/x?X-Amz-Signature=***&X-Amz-Credential=***'],
    ['https://h/cb#access_token=abc&state=1', 'https://h/cb#access_token=***&state=1'],
  ];
  for (const [url, expected] of cases) assert.is(redactUrl(url), expected, url);
});

test('redactUrl: a URL without credentials is unchanged, user or not', () => {
  for (const url of [
    'mongodb://db:27017/shop',
    'mongodb://app@db/shop?authMechanism=MONGODB-X509&authSource=$external',
    'mongodb+srv://cluster0.example.net/',
    'http://127.0.0.1:3000/?page=2#top',
    'not a url',
    // An `@` in the path or query is not userinfo, nor is a port before it.
    'mongodb://db/shop?appName=a@b',
    'http://localhost:4873/@types%2fnode',
    'http://host:3000/path?email=a@b.example',
  ]) {
    assert.is(redactUrl(url), url);
  }
});

test('redactUrlsIn: every URL in a reason or message, relative redirects too', () => {
  assert.is(
    redactUrlsIn('net::ERR_CONNECTION_REFUSED at http://u:pw@127.0.0.1:9/?token=t0k (and "ws://a:b@c/")'),
    'net::ERR_CONNECTION_REFUSED at http://u:***@127.0.0.1:9/?token=*** (and "ws://a:***@c/")',
  );
  assert.is(
    redactUrlsIn('redirected elsewhere: HTTP 302 to /login?next=%2F&session_token=abc; page=1'),
    'redirected elsewhere: HTTP 302 to /login?next=%2F&session_token=***; page=1',
  );
  // A colour code after the URL is the text's, not the value's.
  assert.is(
    redactUrlsIn('\u001b[2m    GET http://x/?token=t0k\u001b[22m'),
    '\u001b[2m    GET http://x/?token=***\u001b[22m',
  );
  assert.is(
    redactUrlsIn('redirect loop: HTTP 301 from http://a:b@h/x back to http://a:b@h/x'),
    'redirect loop: HTTP 301 from http://a:***@h/x back to http://a:***@h/x',
  );
  assert.is(
    redactUrlsIn('HTTP 503 Service Unavailable; checks: database=disconnected'),
    'HTTP 503 Service Unavailable; checks: database=disconnected',
  );
});

test('scrubSecrets: the password and secret parameters disappear from a driver message, raw and decoded', () => {
  const uri = 'mongodb://app:p%40ss%2Fw0rd@db:27017/shop?proxyPassword=pr%3Fxy';
  const message =
    'connect failed for mongodb://app:p%40ss%2Fw0rd@db:27017/shop: ' +
    'auth failed for user app with password p@ss/w0rd; proxy refused pr?xy';
  assert.is(
    scrubSecrets(message, uri),
    'connect failed for mongodb://app:***@db:27017/shop: auth failed for user app with password ***; proxy refused ***',
  );
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

test('scrubSecrets: without a secret the text is unchanged', () => {
  for (const uri of ['mongodb://db/shop', 'mongodb://app@db/shop', 'mongodb://app:@db/shop?token=', 'nonsense']) {
    assert.is(scrubSecrets('connect ECONNREFUSED 127.0.0.1:27017', uri), 'connect ECONNREFUSED 127.0.0.1:27017', uri);
  }
});

test.run();
