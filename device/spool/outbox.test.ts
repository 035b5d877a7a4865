// The outbox on its own, over bytes in memory: no file, no socket.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createOutbox, type FrameLimits, type Outbox } from './outbox.ts';
import { encodeReading, parseDeviceMessage, readingsRoom, type ReadingsMessage } from '../../lib/device-protocol.ts';

const TIMESTAMP = '2024-05-01T10:00:00.000Z';

/** An outbox over in-memory blocks, and `put` to keep a reading in one as the spool would (a line per reading). */
function setup() {
  const blocks = new Map<number, Buffer>();
  const outbox = createOutbox({ read: (id, start, end) => blocks.get(id)!.subarray(start, end) });
  const put = (block: number, session: string, seq: number, value = `${session}${seq}`) => {
    const json = encodeReading({ seq, timestamp: TIMESTAMP, value });
    const before = blocks.get(block) ?? Buffer.alloc(0);
    const offset = before.length + 5; // some bytes of the record before the reading, as in a spool line
    blocks.set(block, Buffer.concat([before, Buffer.from(`head:${json}\n`)]));
    outbox.add(block, session, seq, offset, Buffer.byteLength(json));
  };
  return { outbox, put };
}

const limits = (over: Partial<FrameLimits> = {}): FrameLimits => ({
  deviceId: 'dev',
  maxBytes: 1 << 20,
  inFlightMax: 1000,
  ...over,
});
/** What `next` hands out until it has nothing, as `session+seq` lists, frame by frame. */
function frames(outbox: Outbox, l = limits()) {
  const out: string[][] = [];
  for (let frame = outbox.next(l); frame; frame = outbox.next(l)) {
    const message = parseDeviceMessage(frame.text) as ReadingsMessage;
    assert.equal([message.type, message.deviceId, message.session], ['readings', l.deviceId, frame.session]);
    assert.ok(Buffer.byteLength(frame.text) <= l.maxBytes || message.readings.length === 1, 'within maxBytes');
    out.push(message.readings.map((r) => r.value));
  }
  return out;
}

test('one session per frame, oldest first; rewind sends everything unacknowledged again', () => {
  const { outbox, put } = setup();
  for (let seq = 1; seq <= 3; seq++) put(1, 'old', seq);
  for (let seq = 1; seq <= 2; seq++) put(2, 'new', seq);
  assert.is(outbox.size, 5);
  assert.equal(frames(outbox), [
    ['old1', 'old2', 'old3'],
    ['new1', 'new2'],
  ]);
  assert.not.ok(outbox.hasNext(limits()), 'all sent');
  assert.equal(outbox.forget('old', 2), { forgotten: 2, refused: [] });
  assert.not.ok(outbox.hasNext(limits()), 'an ack sends nothing again');
  outbox.rewind();
  assert.ok(outbox.hasNext(limits({ inFlightMax: 1 })), 'after a rewind nothing is in flight');
  assert.equal(frames(outbox), [['old3'], ['new1', 'new2']]);
});

test('never more than inFlightMax sent and unacknowledged; an ack makes room for the next frame', () => {
  const { outbox, put } = setup();
  for (let seq = 1; seq <= 10; seq++) put(1, 's', seq);
  const l = limits({ inFlightMax: 4 });
  assert.equal(frames(outbox, l), [['s1', 's2', 's3', 's4']]);
  assert.not.ok(outbox.hasNext(l), 'the in-flight bound holds the rest');
  outbox.forget('s', 3);
  assert.ok(outbox.hasNext(l));
  assert.equal(frames(outbox, l), [['s5', 's6', 's7']]);
  outbox.forget('s', 7);
  assert.equal(frames(outbox, l), [['s8', 's9', 's10']]);
  assert.not.ok(outbox.hasNext(limits({ inFlightMax: 4 })), 'nothing left to send');
});

test('a frame holds what fits maxBytes, one reading at least', () => {
  const { outbox, put } = setup();
  for (let seq = 1; seq <= 10; seq++) put(1, 'n', seq);
  const one = encodeReading({ seq: 1, timestamp: TIMESTAMP, value: 'n1' }).length;
  // Room for two readings and their comma exactly: n10 is a byte longer, so it goes alone after n9 does.
  // The frame reports a backlog of 10 to 1 as it drains: counted at two digits, the widest it gets here.
  const maxBytes = 2 * one + 1 + (1 << 10) - readingsRoom({ deviceId: 'dev', session: 'n', backlog: 10 }, 1 << 10);
  assert.equal(
    frames(outbox, limits({ maxBytes })).map((f) => f.length),
    [2, 2, 2, 2, 1, 1],
  );
  outbox.rewind();
  assert.equal(
    frames(outbox, limits({ maxBytes: 1 })).map((f) => f.length),
    Array(10).fill(1),
    'a reading over the budget goes alone',
  );
});

test('forget: a prefix of one session, refused ones named; drop takes a block with what it holds', () => {
  const { outbox, put } = setup();
  for (let seq = 1; seq <= 3; seq++) put(1, 'a', seq);
  for (let seq = 4; seq <= 6; seq++) put(2, 'a', seq);
  for (let seq = 1; seq <= 2; seq++) put(3, 'b', seq);
  assert.equal(outbox.forget('a', 4, new Set([2, 4, 9])), { forgotten: 4, refused: [2, 4] });
  assert.equal(outbox.forget('a', 4), { forgotten: 0, refused: [] }, 'repeated');
  assert.equal(outbox.forget('zzz', 99), { forgotten: 0, refused: [] }, 'foreign');
  assert.equal([outbox.live(1), outbox.live(2), outbox.live(3), outbox.live(7)], [0, 2, 2, 0]);
  assert.equal(outbox.oldest(), { session: 'a', seq: 5 });
  assert.equal([...outbox.sessions()], ['a', 'b']);
  assert.equal(outbox.drop(2), { session: 'a', ranges: [[5, 6]] });
  assert.is(outbox.drop(2), undefined, 'gone');
  assert.equal([outbox.size, outbox.oldest()], [2, { session: 'b', seq: 1 }]);
  assert.equal(frames(outbox), [['b1', 'b2']]);
  assert.equal([...outbox.sessions()], ['b'], 'a session with nothing unacknowledged left');
});

test('each frame reports the backlog as the outbox counts it when the frame is built', () => {
  const { outbox, put } = setup();
  for (let seq = 1; seq <= 5; seq++) put(1, 's', seq);
  const l = limits({ inFlightMax: 2 });
  const first = outbox.next(l)!;
  assert.is((parseDeviceMessage(first.text) as ReadingsMessage).backlog, 5, 'its own readings included');
  assert.is(first.backlog, 5);
  outbox.forget('s', 2);
  put(1, 's', 6);
  const second = outbox.next(l)!;
  assert.equal([second.firstSeq, second.backlog], [3, 4]);
  assert.is((parseDeviceMessage(second.text) as ReadingsMessage).backlog, 4);
});

test('a reading for an older block, or another session in the same block, is a bug, thrown', () => {
  const { outbox, put } = setup();
  put(2, 's', 1);
  assert.throws(() => put(1, 's', 2), /does not follow block 2/);
  assert.throws(() => put(2, 'other', 1), /does not follow block 2/);
});

test.run();
