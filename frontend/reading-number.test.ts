import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseReadingNumber } from './reading-number.ts';

test("the emulator's line and other name=number pairs", () => {
  assert.equal(parseReadingNumber('temperature_c=21.00'), { name: 'temperature_c', number: 21 });
  assert.equal(parseReadingNumber('temperature_c=-3.25'), { name: 'temperature_c', number: -3.25 });
  assert.equal(parseReadingNumber('  level = 40% '), { name: 'level', number: 40 });
  assert.equal(parseReadingNumber('v=1.5e3'), { name: 'v', number: 1500 });
  assert.equal(parseReadingNumber('sensor.t-1=+.5'), { name: 'sensor.t-1', number: 0.5 });
});

test('the first pair that carries a number wins, whatever separates the pairs', () => {
  assert.equal(parseReadingNumber('temperature_c=21.5 humidity=40'), { name: 'temperature_c', number: 21.5 });
  assert.equal(parseReadingNumber('status=ok, humidity=40.2; t=3'), { name: 'humidity', number: 40.2 });
  assert.equal(parseReadingNumber('status=ok;t=3'), { name: 't', number: 3 });
});

test('a bare number, with or without a unit', () => {
  assert.equal(parseReadingNumber('21.5'), { name: null, number: 21.5 });
  assert.equal(parseReadingNumber(' -0.25 '), { name: null, number: -0.25 });
  assert.equal(parseReadingNumber('21.5 C'), { name: null, number: 21.5 });
  assert.equal(parseReadingNumber('-3.2 °C'), { name: null, number: -3.2 });
  assert.equal(parseReadingNumber('40%'), { name: null, number: 40 });
  assert.equal(parseReadingNumber('12 km/h'), { name: null, number: 12 });
});

test('no number: null, never a number read out of the middle of some text', () => {
  for (const value of [
    '',
    'open',
    'error: sensor timeout',
    'status=ok',
    '12:30',
    '1.2.3',
    '0x1F',
    'v=0x1F',
    'NaN',
    'Infinity',
    'v=Infinity',
    '1e999',
    'v=1e999',
    'sensor 2 failed',
    '21.5 C and falling',
    '=21',
    't=21=22',
  ]) {
    assert.is(parseReadingNumber(value), null, JSON.stringify(value));
  }
});

test.run();
