import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogSink } from '../../test/support/log-sink.ts';
import { createRefusalLog } from './refusal-log.ts';

test('one warning per address per window; again once the window has passed', () => {
  const sink = createLogSink();
  let now = 0;
  const refusals = createRefusalLog({ log: sink.log, windowMs: 60_000, now: () => now });
  for (let i = 0; i < 100; i++) refusals.refused('10.0.0.1', 'no token');
  refusals.refused('10.0.0.2', 'wrong token');
  now = 59_999;
  refusals.refused('10.0.0.1', 'no token');
  now = 60_000;
  refusals.refused('10.0.0.1', 'wrong token');
  const lines = sink.find('refused a device socket upgrade');
  assert.equal(
    lines.map((l) => [l.remoteAddress, l.reason, l.refusedTotal]),
    [
      ['10.0.0.1', 'no token', 1],
      ['10.0.0.2', 'wrong token', 101],
      ['10.0.0.1', 'wrong token', 103],
    ],
  );
  assert.is(lines[0]!.msg, 'refused a device socket upgrade from 10.0.0.1: no token (401)');
  assert.is(lines[0]!.level, 40);
});

test('memory stays bounded: past maxAddresses, refusals from new addresses are summed, not remembered', () => {
  const sink = createLogSink();
  let now = 0;
  const refusals = createRefusalLog({ log: sink.log, maxAddresses: 3, windowMs: 60_000, now: () => now });
  for (let i = 1; i <= 1000; i++) refusals.refused(`10.0.${i >> 8}.${i & 255}`, 'no token');
  refusals.flush();
  assert.is(sink.find('refused a device socket upgrade from').length, 3);
  assert.equal(
    sink.find('addresses beyond the 3 tracked').map((l) => l.count),
    [1, 996],
  );
  // Once the window has passed, the remembered addresses expire and new ones are warned about again.
  now = 60_000;
  refusals.refused('192.0.2.1', 'no token');
  assert.is(sink.find('from 192.0.2.1').length, 1);
});

test.run();
