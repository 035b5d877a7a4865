import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { acceptsTextFormat } from './metrics-routes.ts';

test('the text format is served to no Accept, text/plain, wildcards and a scraper that also takes OpenMetrics', () => {
  for (const accept of [
    undefined,
    '',
    'text/plain',
    'TEXT/PLAIN; version=0.0.4',
    '*/*',
    'text/*',
    'application/json, */*;q=0.1',
  ]) {
    assert.ok(acceptsTextFormat(accept), String(accept));
  }
  assert.ok(acceptsTextFormat('application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5'));
});

test('an Accept without any of those, or with them at q=0, is refused', () => {
  for (const accept of ['application/json', 'text/html', 'text/plain;q=0', 'image/*, application/xml;q=0.9']) {
    assert.not.ok(acceptsTextFormat(accept), accept);
  }
});

test.run();
