// Joining a base URL and an endpoint path: prefixes kept, slashes folded, the base's query and fragment dropped.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { endpointUrl, websocketUrl } from './endpoint-url.ts';

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

test('a WebSocket endpoint: ws for http, wss for https, the prefix kept', () => {
  assert.is(
    websocketUrl('https://gw.example/backend/', '/api/device/socket'),
    'wss://gw.example/backend/api/device/socket',
  );
  assert.is(websocketUrl('http://h:3001', '/api/device/socket'), 'ws://h:3001/api/device/socket');
  assert.is(websocketUrl('http://u:p@h/a//?q=1', 'api/x'), 'ws://u:p@h/a/api/x');
  assert.is(endpointUrl('https://gw.example/backend/', '/api/health'), 'https://gw.example/backend/api/health');
});

test.run();
