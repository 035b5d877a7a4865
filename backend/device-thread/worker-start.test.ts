// withoutPreloads: a thread gets the process's options without its preloads, in either spelling; a thread started
// has its young generation bounded.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogSink } from '../../test/support/log-sink.ts';
import { withDeadline } from '../../test/support/deadline.ts';
import { startWorker, THREAD_YOUNG_GENERATION_MB, withoutPreloads } from './worker-start.ts';

// A thread that says ready, and answers each message with the limits it runs under (in batches: thread-port.ts).
const LIMITS_THREAD = new URL(
  'data:text/javascript,' +
    encodeURIComponent(
      "import { parentPort, resourceLimits } from 'node:worker_threads';" +
        "parentPort.on('message', () => parentPort.postMessage([{ kind: 'limits', limits: resourceLimits }]));" +
        "parentPort.postMessage([{ kind: 'ready' }]);",
    ),
);

test('preloads go, with their values, whichever way they are written; other options stay', () => {
  const argv = ['--import', 'tsx', '--import=./test/support/exit-on-sigterm.ts', '--enable-source-maps'];
  assert.equal(withoutPreloads([...argv, '-r', 'x.cjs', '--require=y.cjs', '--no-deprecation']), [
    '--enable-source-maps',
    '--no-deprecation',
  ]);
  assert.equal(withoutPreloads(['--loader', 'l.mjs', '--experimental-loader=m.mjs', '--cpu-prof']), ['--cpu-prof']);
  assert.equal(withoutPreloads([]), []);
});

test('a thread runs with its young generation bounded', async () => {
  let told: (limits: unknown) => void = () => {};
  const limits = new Promise((resolve) => (told = resolve));
  const onMessage = (message: { kind: string; limits?: unknown }) => message.kind === 'limits' && told(message.limits);
  const thread = await startWorker(LIMITS_THREAD, {}, onMessage, { onExit: () => {}, log: createLogSink().log });
  try {
    thread.post({ kind: 'limits?' });
    const got = (await withDeadline(limits, 5000, "the thread's limits")) as { maxYoungGenerationSizeMb: number };
    assert.is(got.maxYoungGenerationSizeMb, THREAD_YOUNG_GENERATION_MB);
  } finally {
    await thread.end();
  }
});

test.run();
