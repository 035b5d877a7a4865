import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readMetricsEnabled } from './metrics-setting.ts';
import { readMetricsPort } from './metrics-setting.ts';
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

test('METRICS_PORT: 9464 outside local mode; in local mode only when set', () => {
  assert.is(readMetricsPort({}, 'production'), 9464);
  assert.is(readMetricsPort({ METRICS_PORT: '9100' }, 'staging'), 9100);
  assert.is(readMetricsPort({}, 'local'), undefined);
  assert.is(readMetricsPort({ METRICS_PORT: ' ' }, 'local'), undefined);
  assert.is(readMetricsPort({ METRICS_PORT: '0' }, 'local'), 0);
  assert.throws(() => readMetricsPort({ METRICS_PORT: 'x' }, 'production'), /^METRICS_PORT=x is not valid/);
});

test.run();
