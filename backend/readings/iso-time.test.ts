import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseIsoTime } from './iso-time.ts';

test('date-times with a zone are read to the millisecond', () => {
  assert.is(parseIsoTime('2026-01-02T03:04:05.678Z')?.toISOString(), '2026-01-02T03:04:05.678Z');
  assert.is(parseIsoTime('2026-01-02T03:04Z')?.toISOString(), '2026-01-02T03:04:00.000Z');
  assert.is(parseIsoTime('2026-01-02T03:04:05.123456789Z')?.toISOString(), '2026-01-02T03:04:05.123Z');
  assert.is(parseIsoTime('2026-01-02T03:04:05+02:00')?.toISOString(), '2026-01-02T01:04:05.000Z');
  assert.is(parseIsoTime('2026-01-02T03:04:05-00:30')?.toISOString(), '2026-01-02T03:34:05.000Z');
  assert.is(parseIsoTime('2024-02-29T00:00:00Z')?.toISOString(), '2024-02-29T00:00:00.000Z');
  assert.is(parseIsoTime('0099-12-31T23:59:59Z')?.toISOString(), '0099-12-31T23:59:59.000Z');
  // A zone that moves the instant across a day, a month or a year, into and out of a leap day.
  assert.is(parseIsoTime('2026-03-01T00:30:00+01:00')?.toISOString(), '2026-02-28T23:30:00.000Z');
  assert.is(parseIsoTime('2024-03-01T00:30:00+01:00')?.toISOString(), '2024-02-29T23:30:00.000Z');
  assert.is(parseIsoTime('2025-12-31T23:30:00-01:00')?.toISOString(), '2026-01-01T00:30:00.000Z');
  assert.is(parseIsoTime('0050-01-01T00:30:00+01:00')?.toISOString(), '0049-12-31T23:30:00.000Z');
  assert.is(parseIsoTime('2026-01-02T03:04:05.9Z')?.toISOString(), '2026-01-02T03:04:05.900Z');
  assert.is(parseIsoTime('2026-01-02T03:04:05.0999Z')?.toISOString(), '2026-01-02T03:04:05.099Z');
});

test('anything else is not a date: no zone, no time, impossible days and times, other formats', () => {
  for (const text of [
    '',
    'yesterday',
    '2026-01-02',
    '2026-01-02T03:04:05',
    '2026-02-30T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:60:00Z',
    '2026-01-01T00:00:60Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01 00:00:00Z',
    '1767225600000',
    'Thu, 01 Jan 2026 00:00:00 GMT',
    ' 2026-01-01T00:00:00Z',
  ]) {
    assert.is(parseIsoTime(text), undefined, JSON.stringify(text));
  }
});

test.run();
