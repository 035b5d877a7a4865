import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { HEARTBEAT_QUIET_MS, owesPong, startQuietHeartbeat } from './quiet-heartbeat.ts';
import { waitFor } from '../../test/support/deadline.ts';

test('a pong is owed once the socket has been quiet for the whole quiet time, not before', () => {
  assert.is(owesPong(1000, 1000 + HEARTBEAT_QUIET_MS - 1), false);
  assert.is(owesPong(1000, 1000 + HEARTBEAT_QUIET_MS), true);
  assert.is(owesPong(0, 40, 50), false);
  assert.is(owesPong(0, 50, 50), true);
});

test('the heartbeat pongs a quiet socket once per quiet time, and never one that keeps sending', async () => {
  let clock = 0;
  let pongs = 0;
  const heartbeat = startQuietHeartbeat(() => (pongs += 1), { quietMs: 100, checkMs: 2, now: () => clock });
  try {
    clock = 99;
    await sleep(20); // several checks, all within the quiet time
    assert.is(pongs, 0);
    heartbeat.sent();
    clock = 198; // quiet for 99 since the send: still nothing owed
    await sleep(20);
    assert.is(pongs, 0);
    clock = 199;
    await waitFor(() => pongs === 1, { timeout: 5000, interval: 2, what: 'a pong once quiet for 100' });
    await sleep(20); // the pong itself restarts the quiet time: no second one at the same clock
    assert.is(pongs, 1);
    clock = 299;
    await waitFor(() => pongs === 2, { timeout: 5000, interval: 2, what: 'another pong 100 later' });
  } finally {
    heartbeat.stop();
  }
  clock = 10_000;
  await sleep(20);
  assert.is(pongs, 2, 'stopped: no more pongs');
});

test.run();
