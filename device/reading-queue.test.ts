import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createReadingQueue } from './reading-queue.ts';
import { createLogSink } from '../test/support/log-sink.ts';
import { waitFor } from '../test/support/deadline.ts';

const options = { deviceId: 'dev-1', session: 's-1' };

test('numbers readings from 1 with the session, device and an ISO timestamp', () => {
  const queue = createReadingQueue({ ...options, log: createLogSink().log });
  const at = new Date('2024-05-01T10:00:00.000Z');
  assert.equal(queue.push('t=21.5', at), {
    type: 'reading',
    deviceId: 'dev-1',
    session: 's-1',
    seq: 1,
    timestamp: '2024-05-01T10:00:00.000Z',
    value: 't=21.5',
  });
  assert.is(queue.push('t=21.6').seq, 2);
  assert.equal(
    queue.pending().map((r) => r.value),
    ['t=21.5', 't=21.6'],
  );
});

test('an ack removes everything up to its sequence number, and only that', () => {
  const queue = createReadingQueue({ ...options, log: createLogSink().log });
  for (let i = 1; i <= 5; i++) queue.push(`v${i}`);
  assert.is(queue.ack(3), 3);
  assert.equal(
    queue.pending().map((r) => r.seq),
    [4, 5],
  );
  assert.is(queue.ack(3), 0); // a repeated ack changes nothing
  assert.is(queue.ack(99), 2);
  assert.is(queue.size, 0);
  assert.is(queue.push('next').seq, 6); // numbering continues within the session
});

test('overflow drops the oldest and warns once with how many, then sums later drops', async () => {
  const sink = createLogSink();
  const queue = createReadingQueue({ ...options, log: sink.log, limit: 3, warnIntervalMs: 50 });
  for (let i = 1; i <= 4; i++) queue.push(`v${i}`);
  assert.equal(
    queue.pending().map((r) => r.seq),
    [2, 3, 4],
  );
  assert.is(sink.find('dropped').length, 1);
  assert.is(sink.find('dropped')[0]!.dropped, 1);
  assert.is(sink.find('dropped')[0]!.level, 40);
  for (let i = 5; i <= 9; i++) queue.push(`v${i}`);
  assert.equal(
    queue.pending().map((r) => r.seq),
    [7, 8, 9],
  );
  assert.is(sink.find('dropped').length, 1, 'later drops wait for the interval');
  const warnings = await waitFor(() => (sink.find('dropped').length >= 2 ? sink.find('dropped') : undefined), {
    timeout: 2000,
    what: 'the summed warning',
  });
  assert.is(warnings.length, 2);
  assert.is(warnings[1]!.dropped, 5);
  assert.is(warnings[1]!.droppedTotal, 6);
  assert.match(warnings[1]!.msg, /dropped the 5 oldest/);
  assert.is(queue.dropped, 6);
  queue.flush();
});

test('flush reports drops not yet warned about', () => {
  const sink = createLogSink();
  const queue = createReadingQueue({ ...options, log: sink.log, limit: 1, warnIntervalMs: 60_000 });
  queue.push('a');
  queue.push('b');
  queue.push('c');
  queue.push('d');
  assert.is(sink.find('dropped').length, 1);
  queue.flush();
  assert.equal(
    sink.find('dropped').map((w) => w.dropped),
    [1, 2],
  );
});

test('stays correct across many pushes and acks (head compaction)', () => {
  const queue = createReadingQueue({ ...options, log: createLogSink().log, limit: 10_000 });
  for (let i = 1; i <= 25_000; i++) {
    queue.push(`v${i}`);
    if (i % 7 === 0) queue.ack(i - 3);
  }
  assert.is(queue.size, 6); // the last ack (at 24 997) covered up to 24 994
  queue.ack(24_997);
  assert.is(queue.size, 3);
  assert.equal(
    queue.pending().map((r) => r.seq),
    [24_998, 24_999, 25_000],
  );
  assert.is(queue.dropped, 0);
});

test('after(seq, max): the next unacknowledged readings above seq, across acks and drops', () => {
  const queue = createReadingQueue({ ...options, log: createLogSink().log, limit: 5 });
  assert.equal(queue.after(0, 3), []);
  for (let i = 1; i <= 8; i++) queue.push(`v${i}`); // 1-3 dropped: 4..8 kept
  assert.equal(
    queue.after(0, 2).map((r) => r.seq),
    [4, 5],
  );
  assert.equal(
    queue.after(5, 10).map((r) => r.seq),
    [6, 7, 8],
  );
  queue.ack(6);
  assert.equal(
    queue.after(5, 10).map((r) => r.seq),
    [7, 8],
  );
  assert.equal(queue.after(8, 10), []);
  queue.flush();
});

test.run();
