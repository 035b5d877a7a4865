// The room rule without files: a segment's size, when a record rolls to a new segment, and what goes when full.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { roomStep, rollsFirst, segmentBytesFor, type RoomState } from './spool-room.ts';

const state = (over: Partial<RoomState> = {}): RoomState => ({
  spoolBytes: 900,
  activeBytes: 100,
  activeIsOldest: false,
  activeHasReadings: true,
  ...over,
});

test('a segment is a sixteenth of the spool, between 64 KiB and 4 MiB', () => {
  assert.is(segmentBytesFor(64 << 20), 4 << 20);
  assert.is(segmentBytesFor(1 << 20), 64 << 10);
  assert.is(segmentBytesFor(16 << 20), 1 << 20);
  assert.is(segmentBytesFor(1 << 30), 4 << 20);
});

test('a record rolls to a new segment when it would pass the segment size, never from an empty one', () => {
  assert.is(rollsFirst(900, 100, 1000), false);
  assert.is(rollsFirst(901, 100, 1000), true);
  assert.is(rollsFirst(0, 5000, 1000), false, 'a record over the segment size goes alone');
});

test('under the bound: done; over it: the oldest segment goes while it is not the active one', () => {
  assert.is(roomStep(state(), 100, 1000), 'done');
  assert.is(roomStep(state(), 101, 1000), 'evict');
});

test('the active segment as the oldest rolls over once it holds readings; then it can go', () => {
  assert.is(roomStep(state({ activeIsOldest: true }), 101, 1000), 'roll');
  assert.is(roomStep(state({ activeIsOldest: true, activeBytes: 0 }), 2000, 1000), 'done', 'a record over the bound');
  assert.is(
    roomStep(state({ activeIsOldest: true, activeHasReadings: false }), 101, 1000),
    'done',
    'only carried records: rolling would carry them again, for ever',
  );
});

test.run();
