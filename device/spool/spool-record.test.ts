import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { crc32 } from 'node:zlib';
import { decodeRecord, encodeAck, encodeLost, encodeReadingRecord } from './spool-record.ts';

const strip = (line: Buffer) => line.subarray(0, line.length - 1); // without its \n

test('a reading is one checksummed line whose inner JSON is the protocol reading, byte for byte', () => {
  const reading = { seq: 7, timestamp: '2024-05-01T10:00:00.000Z', value: 'température="21,5" \u0001' };
  const { line, jsonOffset, jsonBytes } = encodeReadingRecord('s-1', reading);
  assert.is(line.at(-1), 0x0a);
  assert.match(line.toString(), /^[0-9a-f]{8} \{"type":"reading","session":"s-1","reading":\{/);
  const json = line.subarray(jsonOffset, jsonOffset + jsonBytes).toString();
  assert.equal(JSON.parse(json), reading);
  assert.equal(decodeRecord(strip(line)), { type: 'reading', session: 's-1', seq: 7, jsonOffset, jsonBytes });
});

test('an ack is one checksummed line', () => {
  const line = encodeAck('s-1', 42);
  assert.match(line.toString(), /^[0-9a-f]{8} \{"type":"ack","session":"s-1","seq":42\}\n$/);
  assert.equal(decodeRecord(strip(line)), { type: 'ack', session: 's-1', seq: 42 });
});

test('a lost record is one checksummed line, read back as written; a malformed one is not believed', () => {
  const line = encodeLost('s-1', 'unwritten', [
    [4, 5],
    [9, 9],
  ]);
  assert.match(line.toString(), /^[0-9a-f]{8} \{"type":"lost","session":"s-1","reason":"unwritten","ranges":/);
  assert.equal(decodeRecord(strip(line)), {
    type: 'lost',
    session: 's-1',
    reason: 'unwritten',
    ranges: [
      [4, 5],
      [9, 9],
    ],
  });
  const bad = reencode;
  assert.is(bad({ type: 'lost', session: 's', reason: 'stolen', ranges: [[1, 1]] }), undefined, 'reason');
  assert.is(bad({ type: 'lost', session: 's', reason: 'evicted', ranges: [] }), undefined, 'no ranges');
  assert.is(bad({ type: 'lost', session: 's', reason: 'evicted', ranges: [[3, 2]] }), undefined, 'backwards');
  assert.is(bad({ type: 'lost', session: 's', reason: 'evicted', ranges: [[0, 2]] }), undefined, 'seq 0');
});

/** A checksummed line of any JSON, decoded: what a record of another shape reads as. */
function reencode(body: object) {
  const json = JSON.stringify(body);
  return decodeRecord(Buffer.from(`${crc32(json).toString(16).padStart(8, '0')} ${json}`));
}

test('a torn, altered or foreign line is not believed', () => {
  const { line } = encodeReadingRecord('s-1', { seq: 1, timestamp: 't', value: 'v' });
  const good = strip(line);
  assert.is(decodeRecord(good.subarray(0, good.length - 3)), undefined, 'torn');
  const flipped = Buffer.from(good);
  flipped[flipped.length - 5] = flipped[flipped.length - 5]! ^ 0x01;
  assert.is(decodeRecord(flipped), undefined, 'one bit changed');
  assert.is(decodeRecord(Buffer.from('')), undefined);
  assert.is(decodeRecord(Buffer.from('garbage')), undefined);
  // A correct checksum over JSON of another shape: not ours (and the same crafting of a good one is believed).
  const crafted = (json: string) => Buffer.from(`${crc32(json).toString(16).padStart(8, '0')} ${json}`);
  assert.equal(decodeRecord(crafted('{"type":"ack","session":"s","seq":3}')), { type: 'ack', session: 's', seq: 3 });
  for (const json of [
    '{"type":"ack","session":"s","seq":0}',
    '{"type":"reading","session":"s","reading":{"seq":1,"timestamp":"t","value":"v"},"extra":1}',
    '{"type":"reading","session":"s","reading":{"seq":1,"timestamp":"t","value":2}}',
    '{"type":"reading","session":"s", "reading":{"seq":1,"timestamp":"t","value":"v"}}',
    '[1,2]',
  ]) {
    assert.is(decodeRecord(crafted(json)), undefined, json);
  }
});

test.run();
