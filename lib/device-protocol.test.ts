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
  parseAck,
  parseDeviceMessage,
  readingsFrame,
  readingsOf,
  readingsRoom,
  type Reading,
  isDeviceId,
  DEVICE_ID_MAX_LENGTH,
  DEVICE_MAX_PAYLOAD,
  DEVICE_MESSAGE_RATE,
  DEVICE_MESSAGE_RATE_UNSAID,
  DEVICE_RATE_HEADER,
  DEVICE_SEND_PACE,
  DEVICE_IN_FLIGHT_HEADER,
  DEVICE_UNACKED_IN_FLIGHT,
  DEVICE_UNACKED_IN_FLIGHT_UNSAID,
  answerHeaderLines,
  parseInFlightHeader,
  paceUnder,
  parseRateHeader,
  rateHeaderValue,
  DEVICE_SOCKET_PATH,
  DEVICE_VALUE_MAX_BYTES,
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
    [{ ...base, ranges: [[1, 2 ** 53 - 1]] }, 'ranges[0]: past the highest seq a session reaches (2^40)'],
    [{ ...base, ranges: [[2 ** 40, 2 ** 40 + 1]] }, 'ranges[0]: past the highest seq a session reaches (2^40)'],
    [{ ...base, ranges: [[1, 2 ** 32 + 1]] }, 'ranges[0]: holds more than 2^32 numbers'],
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

test('an ack parses with its session and seq; refusals come through only when there are some', () => {
  const ack = (fields: object) => JSON.stringify({ type: 'ack', session: 's', seq: 7, ...fields });
  assert.equal(parseAck(ack({})), { type: 'ack', session: 's', seq: 7 });
  assert.equal(parseAck(ack({ refused: [3] })), { type: 'ack', session: 's', seq: 7, refused: [3] });
  assert.equal(parseAck(ack({ refused: [2, 5, 7] })), { type: 'ack', session: 's', seq: 7, refused: [2, 5, 7] });
  // An empty list says no refusal: the ack has no `refused` field at all.
  assert.equal(parseAck(ack({ refused: [] })), { type: 'ack', session: 's', seq: 7 });
  assert.not.ok('refused' in parseAck(ack({ refused: [] }))!);
  assert.equal(parseAck(ack({ session: '', seq: 0 })), { type: 'ack', session: '', seq: 0 });
});

test('a malformed ack is no ack at all', () => {
  const ack = (fields: object) => JSON.stringify({ type: 'ack', session: 's', seq: 7, ...fields });
  const bad = [
    'null',
    '[]',
    '"ack"',
    '7',
    '{"type":',
    '',
    JSON.stringify({ session: 's', seq: 7 }),
    ack({ type: 'hello' }),
    ack({ type: 'ACK' }),
    ack({ session: 5 }),
    ack({ session: null }),
    JSON.stringify({ type: 'ack', seq: 7 }),
    ack({ seq: 1.5 }),
    ack({ seq: '7' }),
    ack({ seq: null }),
    ack({ seq: 2 ** 53 }),
    JSON.stringify({ type: 'ack', session: 's' }),
    ack({ refused: null }),
    ack({ refused: 3 }),
    ack({ refused: '3' }),
    ack({ refused: { 0: 3 } }),
    ack({ refused: [3, 'x'] }),
    ack({ refused: ['x', 3] }),
    ack({ refused: [1.5] }),
    ack({ refused: [2, null] }),
  ];
  for (const text of bad) assert.is(parseAck(text), undefined, text);
});

test('a frame holding null, an array, a string or a number is not a message', () => {
  for (const text of ['null', '[]', '[{"type":"hello","deviceId":"d","session":"s"}]', '"hello"', '5', 'true']) {
    assert.is(parseDeviceMessage(text), undefined, text);
    assert.equal(checkDeviceMessage(text), { reason: 'not a JSON object' }, text);
  }
});

test('a single reading parses with its head; readingsOf lists what any message carries', () => {
  const single = { type: 'reading', deviceId: 'd', session: 's', seq: 4, timestamp: 't', value: 'v' };
  const message = parseDeviceMessage(JSON.stringify({ ...single, extra: 1 }));
  assert.equal(message, single);
  assert.equal(readingsOf(message as never), [{ seq: 4, timestamp: 't', value: 'v' }]);
  const r = [
    { seq: 1, timestamp: 't', value: 'a' },
    { seq: 3, timestamp: 'u', value: 'b' },
  ];
  const frame = parseDeviceMessage(readingsFrame({ deviceId: 'd', session: 's' }, r.map(encodeReading)));
  assert.equal(readingsOf(frame as never), r);
  const lost = parseDeviceMessage(lostFrame({ deviceId: 'd', session: 's' }, 'evicted', [[1, 2]]));
  assert.equal(readingsOf(lost as never), []);
  const frameOf = (item: unknown) =>
    JSON.stringify({ type: 'readings', deviceId: 'd', session: 's', readings: [item] });
  for (const item of [null, 'x', 3])
    assert.equal(checkDeviceMessage(frameOf(item)), { reason: 'readings[0]: not an object' });
  for (const [field, value, reason] of [
    ['seq', 0, 'seq is not a whole number from 1'],
    ['seq', '4', 'seq is not a whole number from 1'],
    ['timestamp', null, 'timestamp is not a string'],
    ['value', 5, 'value is not a string'],
  ] as const) {
    assert.equal(checkDeviceMessage(JSON.stringify({ ...single, [field]: value })), { reason }, `${field}`);
  }
  assert.equal(checkDeviceMessage(JSON.stringify({ ...single, seq: 1 })), { message: { ...single, seq: 1 } });
});

test('device ids and sessions: at most DEVICE_ID_MAX_LENGTH characters, ids only from their alphabet', () => {
  const longest = 'a'.repeat(DEVICE_ID_MAX_LENGTH);
  assert.ok(isDeviceId(longest));
  assert.not.ok(isDeviceId(`${longest}a`));
  for (const id of ['a', 'A-z_0.9', '...']) assert.ok(isDeviceId(id), id);
  for (const id of ['', ' a', 'a ', 'a/b', 'é', 'a\n', '\na', 7, null]) assert.not.ok(isDeviceId(id), String(id));
  const hello = (deviceId: string, session: string) => checkDeviceMessage(helloFrame(deviceId, session));
  assert.equal(hello(longest, longest), { message: { type: 'hello', deviceId: longest, session: longest } });
  assert.equal(hello('d', `${longest}a`), { reason: `session is not 1 to ${DEVICE_ID_MAX_LENGTH} characters` });
  assert.equal(hello('d', 'any text: é €'), { message: { type: 'hello', deviceId: 'd', session: 'any text: é €' } });
  for (const session of [5, null, ['s']]) {
    assert.equal(checkDeviceMessage(JSON.stringify({ type: 'hello', deviceId: 'd', session })), {
      reason: `session is not 1 to ${DEVICE_ID_MAX_LENGTH} characters`,
    });
  }
  assert.equal(checkDeviceMessage(JSON.stringify({ type: 'hello', deviceId: `${longest}a`, session: 's' })), {
    reason: "deviceId is not letters, digits, '.', '_' and '-', 1 to 256 characters",
  });
});

test('a lost frame writes its fields in order and keeps a backlog of 0', () => {
  const text = lostFrame({ deviceId: 'd', session: 's', backlog: 0 }, 'unwritten', [[2, 2]]);
  assert.is(text, '{"type":"lost","deviceId":"d","session":"s","backlog":0,"reason":"unwritten","ranges":[[2,2]]}');
  assert.equal(checkDeviceMessage(text), {
    message: { type: 'lost', deviceId: 'd', session: 's', backlog: 0, reason: 'unwritten', ranges: [[2, 2]] },
  });
  const base = { type: 'lost', deviceId: 'd', session: 's', reason: 'evicted' };
  for (const ranges of [7, null, 'x', { length: 1 }]) {
    assert.equal(checkDeviceMessage(JSON.stringify({ ...base, ranges })), {
      reason: `ranges is not an array of 1 to ${LOST_RANGES_MAX} ranges`,
    });
  }
  const most = Array.from({ length: LOST_RANGES_MAX }, (_, i): [number, number] => [2 * i + 1, 2 * i + 1]);
  assert.ok(parseDeviceMessage(JSON.stringify({ ...base, ranges: most })), 'LOST_RANGES_MAX ranges is allowed');
  for (const item of [5, [1], ['1', 2], [1, null], [1.5, 2]]) {
    assert.equal(checkDeviceMessage(JSON.stringify({ ...base, ranges: [item] })), {
      reason: 'ranges[0] is not [from, to] of whole numbers from 1',
    });
  }
  // Touching ranges are disjoint; a single number is a range of one.
  const touching = [
    [1, 1],
    [2, 5],
    [6, 6],
  ];
  assert.ok(parseDeviceMessage(JSON.stringify({ ...base, ranges: touching })));
  // The bounds themselves are allowed: a range of 2^32 numbers, one ending on 2^40.
  const widest = [
    [1, 2 ** 32],
    [2 ** 40, 2 ** 40],
  ];
  assert.ok(parseDeviceMessage(JSON.stringify({ ...base, ranges: widest })), 'at both bounds');
});

test('the limits both ends share are the documented ones, and the device paces itself under the backend', () => {
  // docs/contract.md and docs/device-socket-security.md state these figures; the device service and the backend
  // each enforce their side of them.
  assert.is(DEVICE_SOCKET_PATH, '/api/device/socket');
  assert.is(DEVICE_MAX_PAYLOAD, 64 * 1024);
  assert.is(DEVICE_VALUE_MAX_BYTES, 8 * 1024);
  assert.equal(DEVICE_MESSAGE_RATE, { perSecond: 100, burst: 400 });
  assert.equal(DEVICE_MESSAGE_RATE_UNSAID, { perSecond: 50, burst: 200 });
  assert.equal(DEVICE_SEND_PACE, { perSecond: 99, burst: 300 });
  assert.ok(DEVICE_SEND_PACE.perSecond < DEVICE_MESSAGE_RATE.perSecond, 'sustained pace under the rate limit');
  assert.ok(DEVICE_SEND_PACE.burst < DEVICE_MESSAGE_RATE.burst, 'burst under the burst limit');
});

test("the backend's rate in the upgrade's answer: written and read back; anything else read as none", () => {
  assert.is(DEVICE_RATE_HEADER, 'device-message-rate');
  assert.is(rateHeaderValue(DEVICE_MESSAGE_RATE), '100;burst=400');
  assert.equal(parseRateHeader(rateHeaderValue(DEVICE_MESSAGE_RATE)), DEVICE_MESSAGE_RATE);
  assert.equal(parseRateHeader(' 25;burst=40 '), { perSecond: 25, burst: 40 });
  for (const garbled of [undefined, '', '100', '100;burst=', '0;burst=10', '10;burst=0', '-1;burst=5', '1e3;burst=5']) {
    assert.is(parseRateHeader(garbled), undefined, String(garbled));
  }
  assert.is(parseRateHeader('100;burst=400;x=1'), undefined);
  assert.is(parseRateHeader('999999;burst=400'), undefined, 'out of bounds');
});

test("the in-flight bound in the upgrade's answer: said beside the rate, read back; else read as none", () => {
  const lines = answerHeaderLines(DEVICE_MESSAGE_RATE);
  assert.equal(lines, [
    `${DEVICE_RATE_HEADER}: 100;burst=400`,
    `${DEVICE_IN_FLIGHT_HEADER}: ${DEVICE_UNACKED_IN_FLIGHT}`,
  ]);
  assert.is(DEVICE_IN_FLIGHT_HEADER, 'device-in-flight');
  assert.ok(DEVICE_UNACKED_IN_FLIGHT > DEVICE_UNACKED_IN_FLIGHT_UNSAID, 'more in flight for backends that say so');
  assert.is(parseInFlightHeader(' 4000 '), 4000);
  for (const garbled of [undefined, '', '0', '-1', '1e3', '12.5', '4000, 4000', '12345678'])
    assert.is(parseInFlightHeader(garbled), undefined, String(garbled));
});

test('paceUnder leaves room for the pings and for a jitter window of frames and pings', () => {
  const limit = { perSecond: 50, burst: 200 };
  assert.equal(paceUnder(limit), { perSecond: 49, burst: 150 });
  assert.equal(paceUnder(limit, { pingIntervalMs: 250 }), { perSecond: 46, burst: 150 });
  assert.equal(paceUnder(limit, { jitterMs: 0 }), { perSecond: 49, burst: 200 });
  assert.throws(() => paceUnder({ perSecond: 1, burst: 200 }), /no pace fits under 1\/s, burst 200/);
  assert.throws(() => paceUnder({ perSecond: 50, burst: 40 }), /no pace fits/);
});

test.run();
