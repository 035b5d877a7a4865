// keepThread with a real worker (test/support/flaky-worker.mjs): a thread that stops is started again, and a
// start that fails is tried again until one is ready; a thread stopped on purpose stays stopped.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createScratch } from '../../test/support/scratch.ts';
import { createLogSink } from '../../test/support/log-sink.ts';
import { waitFor } from '../../test/support/deadline.ts';
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
  const thread = await keepThread<Message, Message>(FLAKY, { starts }, (reply) => replies.push(reply), {
    log: sink.log,
    name: 'test thread',
    onStopped: (code) => stopped.push(code),
    onStarted: () => (started += 1),
  });
  try {
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

test.run();
