// The rule for handling device frames, without I/O and with a clock the test moves: each socket's frames in order,
// sockets in turn, a slice ending once each socket waiting at its start had a frame or once it has lasted its
// milliseconds (after one frame at least), a socket paused at its bound of waiting frames and resumed once it has none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createFrameQueue } from './frame-queue.ts';

function setup(options: { sliceMs?: number; pauseAt?: number } = {}) {
  const clock = { now: 0 };
  const queue = createFrameQueue<string, string>({ sliceMs: 5, pauseAt: 100, ...options, now: () => clock.now });
  /** The frames one slice gives, each taking `costMs`. */
  const slice = (costMs = 0) => {
    queue.startSlice();
    const taken: string[] = [];
    for (let next = queue.next(); next; next = queue.next()) {
      taken.push(next.frame);
      clock.now += costMs;
    }
    return taken;
  };
  return { queue, clock, slice };
}

test("each socket's frames in the order they came; sockets take turns, one frame each a slice", () => {
  const { queue, slice } = setup();
  for (const frame of ['a1', 'a2', 'a3']) queue.push('a', frame);
  queue.push('b', 'b1');
  queue.push('c', 'c1');
  queue.push('b', 'b2');
  assert.is(queue.size, 6);
  assert.equal(slice(), ['a1', 'b1', 'c1'], 'a round: one frame of each socket waiting, however quick');
  assert.equal(slice(), ['a2', 'b2']);
  assert.equal(slice(), ['a3']);
  assert.equal(slice(), []);
  assert.is(queue.size, 0);
});

test('a socket that starts waiting during a slice has its first frame in the next one', () => {
  const { queue } = setup();
  queue.push('a', 'a1');
  queue.push('a', 'a2');
  queue.startSlice();
  assert.is(queue.next()?.frame, 'a1');
  queue.push('b', 'b1');
  assert.is(queue.next(), undefined, 'the round was one socket long');
  queue.startSlice();
  assert.equal([queue.next()?.frame, queue.next()?.frame, queue.next()], ['a2', 'b1', undefined]);
});

test('a slice ends once it has lasted its milliseconds; the next slice goes on where it stopped', () => {
  const { queue, slice } = setup({ sliceMs: 5 });
  const sockets = Array.from({ length: 10 }, (_, i) => `s${i + 1}`);
  for (const socket of sockets) queue.push(socket, `${socket}-1`);
  assert.equal(slice(2), ['s1-1', 's2-1', 's3-1'], '2 ms each: past 5 ms after the third');
  assert.equal(slice(2), ['s4-1', 's5-1', 's6-1']);
  assert.equal(slice(10), ['s7-1'], 'one frame at least, however long it takes');
  assert.equal(slice(0), ['s8-1', 's9-1', 's10-1']);
  assert.equal(slice(0), []);
});

test('a socket is paused once it has pauseAt frames waiting, once; resumed with its last frame taken', () => {
  const { queue } = setup({ pauseAt: 3 });
  assert.equal(
    ['a1', 'a2', 'a3', 'a4'].map((frame) => queue.push('a', frame)),
    [false, false, true, false],
  );
  assert.is(queue.push('b', 'b1'), false, 'another socket has its own count');
  const taken = Array.from({ length: 5 }, () => (queue.startSlice(), queue.next()!));
  assert.equal(
    taken.map(({ owner, frame, resume }) => `${owner}:${frame}:${resume}`),
    ['a:a1:false', 'b:b1:false', 'a:a2:false', 'a:a3:false', 'a:a4:true'],
  );
  assert.is(queue.push('a', 'a5'), false, 'not paused again until it is behind again');
});

test('takeAll: every frame of one socket, in order, out of the turns; the others are untouched', () => {
  const { queue, slice } = setup({ pauseAt: 2 });
  queue.push('a', 'a1');
  queue.push('b', 'b1');
  assert.is(queue.push('a', 'a2'), true);
  assert.equal(queue.takeAll('a'), ['a1', 'a2']);
  assert.equal(queue.takeAll('a'), []);
  assert.is(queue.size, 1);
  assert.equal(slice(), ['b1']);
  queue.push('a', 'a3');
  assert.is(queue.push('a', 'a4'), true, 'a socket taken out starts over, unpaused');
});

test.run();
