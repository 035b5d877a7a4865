import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseName } from './mongo-uri.ts';

test('databaseName: the path, decoded, or the driver default; a bad escape is not a crash', () => {
  assert.is(databaseName('mongodb://db/shop'), 'shop');
  assert.is(databaseName('mongodb://app:s3cret@db:27017/my%20shop?authSource=admin'), 'my shop');
  assert.is(databaseName('mongodb+srv://cluster0.example.net/'), 'test');
  assert.is(databaseName('mongodb://db'), 'test');
  assert.is(databaseName('mongodb://db/100%'), '100%');
});

test.run();
