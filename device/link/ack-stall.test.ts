// The stall decision: only connected, holding readings, and unacknowledged past the bound.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createAckStall } from './ack-stall.ts';

test('stalled only while connected with readings waiting and no ack for longer than the bound', () => {
  let t = 0;
  const stall = createAckStall({ stallMs: 1000, now: () => t });
  t = 5000;
  assert.is(stall.state(0, true), 'ok', 'idle: nothing to acknowledge is no stall');
  t = 5500;
  assert.is(stall.state(10, true), 'ok', 'within the bound');
  t = 6100;
  assert.is(stall.state(10, true), 'stalled', 'the wedged device: a flat backlog, nothing acknowledged');
  stall.progress();
  assert.is(stall.state(10, true), 'ok', 'an ack');
  t = 7200;
  assert.is(stall.state(10, false), 'ok', 'disconnected: the backend check says so');
  t = 7300;
  assert.is(stall.state(10, true), 'ok', 'the bound starts again on reconnecting');
  t = 8400;
  assert.is(stall.state(10, true), 'stalled');
});

test.run();
