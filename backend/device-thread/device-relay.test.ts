// ownBytes: a frame in a buffer of its own is moved as it is; a frame that shares its buffer is copied.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ownBytes } from './device-relay.ts';

test('a frame with an ArrayBuffer of its own is handed over as it is, not copied', () => {
  // Not allocUnsafe: under Node 22 and later a buffer under 32 KiB comes from the shared pool.
  const frame = Buffer.allocUnsafeSlow(10_000).fill(7);
  assert.ok(ownBytes(frame) === frame.buffer);
});

test('a frame that shares its ArrayBuffer (a slice of a read, a pooled buffer) is copied, byte for byte', () => {
  const read = Buffer.from('header{"type":"hello"}trailer');
  const frame = read.subarray(6, 22);
  const bytes = ownBytes(frame);
  assert.ok(bytes !== read.buffer);
  assert.is(bytes.byteLength, 16);
  assert.is(Buffer.from(bytes).toString(), '{"type":"hello"}');
  const pooled = Buffer.from('abc');
  assert.is(Buffer.from(ownBytes(pooled)).toString(), 'abc');
  assert.ok(ownBytes(pooled) !== pooled.buffer);
});

test.run();
