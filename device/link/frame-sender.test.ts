// The frame sender over a fake socket and a scripted pacer: what goes out when, and nothing once stopped.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setImmediate as tick, setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '../../test/support/deadline.ts';
import { createFrameSender, type SendSocket } from './frame-sender.ts';
import type { FramePacer, Paced } from './frame-pacer.ts';

/** A pacer that hands out `queue` in turn, and a socket that records what it was sent. */
function setup(queue: Paced[], hello?: string) {
  const sent: string[] = [];
  const socket: SendSocket & { readyState: number } = { readyState: 1, send: (text) => sent.push(text) };
  const pacer: FramePacer = {
    open: () => 'hello',
    next: () => queue.shift(),
    backlogHello: () => hello,
  };
  let current: typeof socket | undefined = socket;
  const sender = createFrameSender(pacer, () => current);
  return { sender, sent, queue, socket, drop: () => (current = undefined) };
}

test('a new socket gets its hello, then everything the pacer has', () => {
  const { sender, sent } = setup([{ text: 'f1' }, { text: 'f2' }]);
  sender.open();
  assert.equal(sent, ['hello', 'f1', 'f2']);
});

test('readings delivered together go out on the next turn, in one pump', async () => {
  const { sender, sent, queue } = setup([]);
  sender.open();
  sender.deliver();
  sender.deliver();
  queue.push({ text: 'f1' });
  assert.equal(sent, ['hello'], 'not before the lines of one chunk are all in');
  await tick();
  assert.equal(sent, ['hello', 'f1']);
});

test('a wait for a token pumps again when it is over; stop cancels it', async () => {
  const { sender, sent, queue } = setup([{ text: 'f1' }, { waitMs: 5 }]);
  sender.open();
  queue.push({ text: 'f2' });
  await waitFor(() => sent.length === 3, { timeout: 2000, what: 'the frame after the wait' });
  assert.equal(sent, ['hello', 'f1', 'f2']);
  queue.push({ waitMs: 5 }, { text: 'f3' });
  sender.deliver();
  await tick();
  sender.stop();
  // A timer set after the 5 ms one, and longer, fires after it would have: an order, not a duration.
  await sleep(10);
  assert.equal(sent, ['hello', 'f1', 'f2'], 'nothing after stop');
});

test('an ack that sent no frame reports the backlog in a hello; none while a frame waits for a token', async () => {
  const { sender, sent, queue } = setup([], 'hello backlog');
  sender.open();
  sender.acked(3);
  assert.equal(sent, ['hello', 'hello backlog']);
  queue.push({ waitMs: 50 });
  sender.acked(1);
  assert.equal(sent, ['hello', 'hello backlog'], 'the waiting frame carries the backlog');
  sender.stop();
});

test('nothing is sent without an open socket', async () => {
  const { sender, sent, socket, drop } = setup([{ text: 'f1' }], 'h');
  socket.readyState = 0;
  sender.open();
  sender.acked(1);
  drop();
  sender.deliver();
  await tick();
  assert.equal(sent, []);
});

test.run();
