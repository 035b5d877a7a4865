// Joining a base URL and an endpoint path: prefixes kept, slashes folded, the base's query and fragment dropped.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { endpointUrl } from './endpoint-url.ts';

test('a bare host, with or without its trailing slash', () => {
  assert.is(endpointUrl('http://h:1', '/api/health'), 'http://h:1/api/health');
  assert.is(endpointUrl('http://h:1/', '/api/health'), 'http://h:1/api/health');
  assert.is(endpointUrl('http://h:1/', 'api/ready'), 'http://h:1/api/ready');
});

test('a path prefix is kept; extra slashes on either side are folded', () => {
  assert.is(endpointUrl('http://h/backend', '/api/ready'), 'http://h/backend/api/ready');
  assert.is(endpointUrl('http://h/backend//', '/api/ready'), 'http://h/backend/api/ready');
  assert.is(endpointUrl('https://h/a/b/', '//api/devices'), 'https://h/a/b/api/devices');
});

test("the base's query and fragment are not carried onto the endpoint; its credentials are", () => {
  assert.is(endpointUrl('http://h/?x=1#top', '/api/health'), 'http://h/api/health');
  assert.is(endpointUrl('http://u:p@h/p?token=1', '/api/health'), 'http://u:p@h/p/api/health');
});

test.run();
