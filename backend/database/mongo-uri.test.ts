import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseName, driverRejection } from './mongo-uri.ts';

test("driverRejection: the driver's reason for a URI it refuses, undefined for one it accepts", () => {
  assert.is(driverRejection('mongodb://db/app?foo=bar'), 'option foo is not supported');
  assert.is(driverRejection('mongodb://u:p:w@db/app'), 'Password contains unescaped characters');
  for (const uri of [
    'mongodb://app:s3cret@a:27017,b:27017/shop?replicaSet=rs0&authSource=admin',
    // No DNS at parse time: an srv URI with a host that does not exist is still a well-formed URI.
    'mongodb+srv://app:s3cret@cluster0.invalid/shop?retryWrites=true',
  ]) {
    assert.is(driverRejection(uri), undefined, uri);
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
