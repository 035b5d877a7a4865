import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readMetricsEnabled } from './metrics-setting.ts';
import { ConfigError } from './config-error.ts';

test('METRICS is on unless it says off (or false, 0)', () => {
  for (const value of [undefined, '', ' ', 'on', 'ON', 'true', '1'])
    assert.is(readMetricsEnabled({ METRICS: value }), true);
  for (const value of ['off', 'Off', 'false', '0']) assert.is(readMetricsEnabled({ METRICS: value }), false);
});

test('any other value is a ConfigError naming it', () => {
  for (const value of ['maybe', 'constructor', 'yes please']) {
    assert.throws(
      () => readMetricsEnabled({ METRICS: value }),
      (error: Error) =>
        error instanceof ConfigError && error.message === `METRICS=${value} is not valid: expected on or off`,
    );
  }
});

test.run();
