// keepThread with a real worker (test/support/flaky-worker.mjs): a thread that stops is started again, and a
// start that fails is tried again until one is ready; a thread stopped on purpose stays stopped.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createScratch } from '../../test/support/scratch.ts';
import { createLogSink } from '../../test/support/log-sink.ts';
import { rejection, waitFor } from '../../test/support/deadline.ts';
import { keepThread } from './kept-thread.ts';

const FLAKY = new URL('../../test/support/flaky-worker.mjs', import.meta.url);
type Message = { kind: string; starts?: number };

test('a thread that stops is started again, through a start that fails, until one is ready', async () => {
  const scratch = createScratch('kept-thread-');
  const starts = scratch.file('');
  const sink = createLogSink('info', 'backend');
  const replies: Message[] = [];
  const stopped: number[] = [];
  let started = 0;
  const thread = keepThread<Message, Message>(FLAKY, { starts }, (reply) => replies.push(reply), {
    log: sink.log,
    name: 'test thread',
    onStopped: (code) => stopped.push(code),
    onStarted: () => (started += 1),
  });
  try {
    assert.is(thread.post({ kind: 'ping' }), false, 'returned before the first thread is ready: nothing posted');
    await thread.started;
    assert.is(started, 1);
    assert.is(thread.post({ kind: 'die' }), true);
    await waitFor(() => stopped.length === 1, { what: 'the stop noticed' });
    assert.is(thread.post({ kind: 'ping' }), false, 'nothing posted while no thread runs');
    await waitFor(() => started === 2, { timeout: 10_000, what: 'a thread ready again' });
    thread.post({ kind: 'ping' });
    await waitFor(() => replies.length === 1, { what: 'the pong' });
    assert.equal(replies, [{ kind: 'pong', starts: 3 }], 'the third start answered');
    assert.equal(stopped, [5]);
    assert.is(sink.find('the test thread stopped (exit code 5); starting a new one').length, 1);
    assert.is(sink.find('it exited with 6; trying again').length, 1);
  } finally {
    await thread.stop();
    scratch.remove();
  }
  assert.is(thread.post({ kind: 'ping' }), false, 'stopped on purpose: no thread');
});

test('stopped while its first thread starts: that thread is ended once ready, and none follows', async () => {
  const scratch = createScratch('kept-thread-');
  const sink = createLogSink('info', 'backend');
  let started = 0;
  const thread = keepThread<Message, Message>(FLAKY, { starts: scratch.file('') }, () => {}, {
    log: sink.log,
    name: 'test thread',
    onStopped: () => {},
    onStarted: () => (started += 1),
  });
  try {
    await thread.stop();
    await thread.started;
    assert.is(started, 0, 'never handed out');
    assert.is(thread.post({ kind: 'ping' }), false);
    assert.equal(sink.find('stopped'), [], 'its end is no unexpected stop');
  } finally {
    scratch.remove();
  }
});

test('a first thread that cannot start: `started` rejects with one line', async () => {
  const sink = createLogSink('info', 'backend');
  const thread = keepThread(new URL('data:text/javascript,process.exit(4)'), {}, () => {}, {
    log: sink.log,
    name: 'test thread',
    onStopped: () => {},
    onStarted: () => {},
  });
  const error = await rejection(thread.started);
  assert.is(error.message, 'a thread did not start: it exited with 4');
  await thread.stop();
});

test.run();
