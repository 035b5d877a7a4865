// The readings frame, encoded and parsed back: what the encoder writes the parser reads whole, and the byte room it
// gives is the frame's exact size, for any text a serial line may hold.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  checkDeviceMessage,
  encodeReading,
  helloFrame,
  LOST_RANGES_MAX,
  lostFrame,
  parseDeviceMessage,
  readingsFrame,
  readingsRoom,
  type Reading,
} from './device-protocol.ts';
import { seededRandom } from '../test/support/seeded-random.ts';

// Characters that JSON escapes or that take several UTF-8 bytes: quotes, backslashes, control characters, 2-, 3- and
// 4-byte characters (a surrogate pair), and the ones JavaScript and JSON disagree on (U+2028).
const ALPHABET = ['a', 'Z', '7', ' ', '"', '\\', '/', '\n', '\r', '\t', '\u0000', '\u001f', 'é', '€', '😀', '\u2028'];
// A device id may hold only these (DEVICE_ID_RULE): the hello and the frame refuse any other.
const ID_ALPHABET = ['a', 'Z', '7', '.', '_', '-'];

/** Texts and device ids drawn from one seed. */
function generator(seed: number) {
  const { int, pick } = seededRandom(seed);
  const text = (max: number) => Array.from({ length: int(max + 1) }, () => pick(ALPHABET)).join('');
  const id = (max: number) => Array.from({ length: int(max + 1) }, () => pick(ID_ALPHABET)).join('');
  return { int, text, id };
}

const bytes = (text: string) => Buffer.byteLength(text);

test('random readings round-trip through the frame, and the room is the frame size exactly', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const { int, text, id } = generator(seed);
    const deviceId = `dev-${id(8)}`;
    const session = `s${text(8)}`;
    let seq = int(1000);
    const readings: Reading[] = Array.from({ length: 1 + int(20) }, () => ({
      seq: (seq += 1 + int(3)),
      timestamp: text(3) || '2024-05-01T10:00:00.000Z',
      value: text(40),
    }));
    const encoded = readings.map(encodeReading);
    // Every third frame from a device that does not say its backlog; the others with one of any width.
    const said = seed % 3 === 0 ? {} : { backlog: [0, int(10), int(100_000), Number.MAX_SAFE_INTEGER][int(4)]! };
    const head = { deviceId, session, ...said };
    const frame = readingsFrame(head, encoded);
    assert.equal(parseDeviceMessage(frame), { type: 'readings', ...head, readings }, `seed ${seed}`);
    const used = encoded.reduce((sum, json) => sum + bytes(json), 0) + encoded.length - 1;
    assert.is(readingsRoom(head, bytes(frame)), used, `seed ${seed}: the room is what the readings use`);
  }
});

test('at the byte limit the frame is exactly the limit; one byte more does not fit', () => {
  const limit = 4096;
  for (const filler of ['x', 'é', '€', '"', '\\']) {
    const deviceId = 'device-1.a_b';
    const session = 'sessión';
    const head = { deviceId, session, backlog: 123_456 };
    const room = readingsRoom(head, limit);
    const empty = encodeReading({ seq: 1, timestamp: 't', value: '' });
    // Fill with `filler` as far as it goes, then with one-byte characters up to the room exactly.
    let value = filler.repeat(Math.floor((room - bytes(empty)) / bytes(JSON.stringify(filler).slice(1, -1))));
    while (bytes(encodeReading({ seq: 1, timestamp: 't', value: `${value}a` })) <= room) value += 'a';
    const exact = [encodeReading({ seq: 1, timestamp: 't', value })];
    assert.is(bytes(exact[0]!), room, filler);
    const frame = readingsFrame(head, exact);
    assert.is(bytes(frame), limit, `${filler}: the frame is the limit`);
    assert.equal((parseDeviceMessage(frame) as { readings: Reading[] }).readings, [{ seq: 1, timestamp: 't', value }]);
    const over = readingsFrame(head, [encodeReading({ seq: 1, timestamp: 't', value: `${value}a` })]);
    assert.is(bytes(over), limit + 1, `${filler}: one byte over`);
    assert.is(readingsRoom(head, bytes(over)), room + 1);
    // The backlog's digits are the frame's bytes too: one digit more leaves one byte less.
    assert.is(readingsRoom({ ...head, backlog: 1_234_567 }, limit), room - 1);
  }
});

test('encodeReading writes seq, timestamp and value in that order, nothing else', () => {
  const json = encodeReading({ seq: 3, timestamp: 't', value: 'v', extra: 1 } as Reading);
  assert.is(json, '{"seq":3,"timestamp":"t","value":"v"}');
  assert.equal(parseDeviceMessage(helloFrame('d', 's')), { type: 'hello', deviceId: 'd', session: 's' });
});

test('hello round-trips with and without a backlog', () => {
  assert.equal(parseDeviceMessage(helloFrame('d', 's', 0)), { type: 'hello', deviceId: 'd', session: 's', backlog: 0 });
  assert.equal(parseDeviceMessage(helloFrame('d', 's', 42)), {
    type: 'hello',
    deviceId: 'd',
    session: 's',
    backlog: 42,
  });
  assert.is(helloFrame('d', 's'), '{"type":"hello","deviceId":"d","session":"s"}', 'no backlog, no field');
});

test('a backlog that is not a whole number from 0 makes the message malformed, whatever its type', () => {
  // As JSON text: 1e400 parses to Infinity, 2^53 is past the safe integers.
  const bad = ['-1', '1.5', '"3"', 'null', 'true', '[]', '{}', '9007199254740992', '1e400'];
  const reading = { seq: 1, timestamp: 't', value: 'v' };
  for (const backlog of bad) {
    for (const message of [
      { type: 'hello', deviceId: 'd', session: 's', backlog: 0 },
      { type: 'reading', deviceId: 'd', session: 's', backlog: 0, ...reading },
      { type: 'readings', deviceId: 'd', session: 's', backlog: 0, readings: [reading] },
    ]) {
      const good = JSON.stringify(message);
      assert.ok(parseDeviceMessage(good), `${good} is a message with a backlog of 0`);
      const text = good.replace('"backlog":0', `"backlog":${backlog}`);
      assert.is(parseDeviceMessage(text), undefined, text);
      assert.equal(checkDeviceMessage(text), { reason: 'backlog is not a whole number from 0' }, text);
    }
  }
});

test('each rule a message breaks has its own reason', () => {
  const r = { seq: 1, timestamp: 't', value: 'v' };
  const base = { type: 'readings', deviceId: 'd', session: 's' };
  const cases: Array<[unknown, string]> = [
    [[1], 'not a JSON object'],
    [{ ...base, deviceId: 'a b' }, "deviceId is not letters, digits, '.', '_' and '-', 1 to 256 characters"],
    [{ ...base, session: '' }, 'session is not 1 to 256 characters'],
    [{ ...base, type: 'ack' }, 'type is not hello, reading, readings or lost'],
    [{ ...base, readings: [] }, 'readings is not a non-empty array'],
    [{ ...base, readings: [r, 7] }, 'readings[1]: not an object'],
    [{ ...base, readings: [{ ...r, seq: 0 }] }, 'readings[0]: seq is not a whole number from 1'],
    [{ ...base, readings: [{ ...r, timestamp: 5 }] }, 'readings[0]: timestamp is not a string'],
    [{ ...base, readings: [r, { ...r, value: null }] }, 'readings[1]: value is not a string'],
    [{ ...base, readings: [r, r] }, 'readings[1]: seq not above the one before'],
    [{ ...base, type: 'reading', ...r, seq: 1.5 }, 'seq is not a whole number from 1'],
  ];
  for (const [message, reason] of cases) assert.equal(checkDeviceMessage(JSON.stringify(message)), { reason });
  assert.equal(checkDeviceMessage('{"type":'), { reason: 'not a JSON object' });
  assert.equal(checkDeviceMessage(JSON.stringify({ ...base, readings: [r] })), {
    message: { type: 'readings', deviceId: 'd', session: 's', readings: [r] },
  });
});

test('lost messages round-trip: any reason, ranges and backlog the encoder takes, the parser gives back', () => {
  for (let seed = 1; seed <= 200; seed++) {
    const { int, id } = generator(seed);
    const head = { deviceId: `dev-${id(8)}`, session: `s-${id(8)}`, ...(seed % 2 ? { backlog: int(5000) } : {}) };
    let at = int(10);
    const ranges = Array.from({ length: 1 + int(30) }, (): [number, number] => {
      const from = (at += 1 + int(100));
      return [from, (at += int(100))];
    });
    const reason = seed % 3 ? 'evicted' : 'unwritten';
    const text = lostFrame(head, reason, ranges);
    assert.equal(checkDeviceMessage(text), { message: { type: 'lost', ...head, reason, ranges } }, `seed ${seed}`);
  }
});

test('each rule a lost message breaks has its own reason', () => {
  const base = { type: 'lost', deviceId: 'd', session: 's', reason: 'evicted', ranges: [[1, 3]] };
  const many = Array.from({ length: LOST_RANGES_MAX + 1 }, (_, i) => [2 * i + 1, 2 * i + 1]);
  const cases: Array<[unknown, string]> = [
    [{ ...base, reason: 'refused' }, 'reason is not evicted or unwritten'],
    [{ ...base, reason: undefined }, 'reason is not evicted or unwritten'],
    [{ ...base, ranges: [] }, `ranges is not an array of 1 to ${LOST_RANGES_MAX} ranges`],
    [{ ...base, ranges: many }, `ranges is not an array of 1 to ${LOST_RANGES_MAX} ranges`],
    [{ ...base, ranges: [[1, 2, 3]] }, 'ranges[0] is not [from, to] of whole numbers from 1'],
    [{ ...base, ranges: [[0, 2]] }, 'ranges[0] is not [from, to] of whole numbers from 1'],
    [
      {
        ...base,
        ranges: [
          [1, 2],
          [3, 2.5],
        ],
      },
      'ranges[1] is not [from, to] of whole numbers from 1',
    ],
    [{ ...base, ranges: [[5, 4]] }, 'ranges[0]: from is above to'],
    [
      {
        ...base,
        ranges: [
          [1, 4],
          [4, 6],
        ],
      },
      'ranges[1]: not above the range before',
    ],
    [{ ...base, backlog: -1 }, 'backlog is not a whole number from 0'],
  ];
  for (const [message, reason] of cases) assert.equal(checkDeviceMessage(JSON.stringify(message)), { reason });
});

test.run();
