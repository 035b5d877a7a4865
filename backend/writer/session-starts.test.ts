// Where a session new to a socket starts, without I/O: at 0 from seq 1, at this process's last ack when it reaches
// the reading before the first, else a lookup of that reading.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sessionStarts } from './session-starts.ts';

const batch = (...entries: Array<[string, number]>) => entries.map(([session, seq]) => ({ session, seq }));
const none = () => undefined;

test('a session starting at seq 1 needs no lookup; one starting later looks up the reading before its lowest', () => {
  assert.equal(sessionStarts(batch(['a', 1], ['b', 7], ['b', 5]), none, undefined), [
    { session: 'a', known: 0, lookup: undefined },
    { session: 'b', known: 0, lookup: 4 },
  ]);
});

test("this process's last ack: no lookup when it reaches the reading before; a lookup when short", () => {
  assert.equal(sessionStarts(batch(['a', 6]), none, { session: 'a', seq: 5 }), [
    { session: 'a', known: 5, lookup: undefined },
  ]);
  assert.equal(sessionStarts(batch(['a', 9]), none, { session: 'a', seq: 5 }), [{ session: 'a', known: 5, lookup: 8 }]);
  assert.equal(sessionStarts(batch(['b', 3]), none, { session: 'a', seq: 5 }), [{ session: 'b', known: 0, lookup: 2 }]);
});

test('a session the socket already has a mark for starts nothing', () => {
  const through = (session: string) => (session === 'a' ? 3 : undefined);
  assert.equal(sessionStarts(batch(['a', 9], ['b', 1]), through, undefined), [
    { session: 'b', known: 0, lookup: undefined },
  ]);
});

test.run();
