// withDeadline: the promise's outcome when it settles in time, else a DeadlineError naming the wait; never a timer
// left behind, never an unhandled rejection from a promise that lost the race.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { clearableDeadline, DeadlineError, deadlineSignal, settledBy, withDeadline } from './with-deadline.ts';

const timers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
const never = () => new Promise<never>(() => {});

test('a promise that settles in time: its value, or its own error', async () => {
  assert.is(await withDeadline(Promise.resolve(42), 10_000, 'the answer'), 42);
  const own = new Error('refused');
  const error = await withDeadline(Promise.reject(own), 10_000, 'the answer').catch((e: unknown) => e);
  assert.is(error, own);
});

test('its timer is cleared as soon as the promise settles', async () => {
  const before = timers();
  await withDeadline(Promise.resolve('x'), 60_000, 'x');
  await withDeadline(Promise.reject(new Error('no')), 60_000, 'x').catch(() => {});
  assert.is(timers(), before);
});

test('too late: a DeadlineError naming what was awaited and the bound, after onExpiry ran once', async () => {
  let expired = 0;
  const error = await withDeadline(never(), 5, { what: 'cannot resolve example.org', onExpiry: () => expired++ }).catch(
    (e: unknown) => e,
  );
  assert.instance(error, DeadlineError);
  assert.is((error as DeadlineError).message, 'cannot resolve example.org: no answer within 5 ms');
  assert.is((error as DeadlineError).what, 'cannot resolve example.org');
  assert.is((error as DeadlineError).ms, 5);
  assert.is(expired, 1);
});

test('a promise that fails after the deadline is not an unhandled rejection', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    let fail!: (error: Error) => void;
    const late = new Promise<never>((_, reject) => (fail = reject));
    await withDeadline(late, 1, 'a late failure').catch(() => {});
    fail(new Error('too late to matter'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('unref: a process waiting on nothing else ends instead of waiting out the deadline', () => {
  const script =
    "const { withDeadline } = await import('./lib/with-deadline.ts');" +
    "withDeadline(new Promise(() => {}), 600000, { what: 'shutdown', unref: true });";
  // The bound only keeps a broken build from hanging the suite: without unref the child would wait 10 minutes.
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('../', import.meta.url)),
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.is(run.status, 0, run.stderr || `signal ${run.signal}`);
});

test('settledBy: the outcome when it comes first, the deadline when the operation never settles', async () => {
  assert.is(await settledBy(Promise.resolve(7), deadlineSignal(60_000)), 7);
  const signal = deadlineSignal(5);
  // The deadline's timer is unref'd (it must not keep a process alive): this one stands for the pending I/O.
  const pending = setTimeout(() => {}, 60_000);
  const error = await settledBy(never(), signal).catch((e: unknown) => e);
  clearTimeout(pending);
  assert.instance(error, DeadlineError);
  assert.is((error as DeadlineError).ms, 5);
  assert.ok(signal.aborted);
});

test('deadlineSignal: an answer that arrived while the process was blocked past the deadline still wins', async () => {
  const signal = deadlineSignal(5);
  const answer = new Promise<string>((resolve) => setTimeout(() => resolve('stored'), 5));
  // Blocks past both timers: the deadline's abort waits for the immediates, after the timers fired.
  const until = Date.now() + 30;
  while (Date.now() < until);
  assert.is(await settledBy(answer, signal), 'stored');
});

test('clearableDeadline: cleared before its time, the signal never aborts; not cleared, it does', async () => {
  const cleared = clearableDeadline(5);
  const kept = clearableDeadline(5);
  cleared.clear();
  const pending = setTimeout(() => {}, 60_000); // the deadlines' timers are unref'd, as above
  await new Promise((resolve) => kept.signal.addEventListener('abort', resolve, { once: true }));
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearTimeout(pending);
  assert.ok(kept.signal.aborted);
  assert.not.ok(cleared.signal.aborted, 'the cleared deadline aborted its signal');
});

test.run();
