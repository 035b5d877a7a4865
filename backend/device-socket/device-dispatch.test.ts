// What a device message means for its socket, decided without I/O: malformed, the binding hello, a first message
// that is not hello, a second device, or more of the bound device for the registry and the writer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeReading, helloFrame, readingsFrame } from '../../lib/device-protocol.ts';
import { dispatch } from './device-dispatch.ts';

const at = '2026-01-01T00:00:00.000Z';
const readings = readingsFrame({ deviceId: 'dev-1', session: 's1', backlog: 4 }, [
  encodeReading({ seq: 1, timestamp: at, value: 'v1' }),
]);
const lost = JSON.stringify({ type: 'lost', deviceId: 'dev-1', session: 's0', reason: 'evicted', ranges: [[1, 3]] });

test('malformed: the reason and a sample of 100 characters; binary is no message', () => {
  const long = `{"type":"nonsense","pad":"${'x'.repeat(200)}"}`;
  const decision = dispatch(long, undefined);
  assert.is(decision.kind, 'malformed');
  assert.is(decision.kind === 'malformed' && decision.sample, long.slice(0, 100));
  assert.equal(dispatch(new ArrayBuffer(4), 'dev-1'), { kind: 'malformed', reason: 'binary', sample: '<binary>' });
});

test('before a hello: a hello binds; anything else is hello-first', () => {
  assert.equal(dispatch(helloFrame('dev-1', 's1', 2), undefined), {
    kind: 'hello',
    message: { type: 'hello', deviceId: 'dev-1', session: 's1', backlog: 2 },
  });
  assert.equal(dispatch(readings, undefined), { kind: 'hello-first', type: 'readings' });
});

test('once bound: a message of another device is refused; a hello names its session for the registry', () => {
  assert.equal(dispatch(helloFrame('dev-2', 's1'), 'dev-1'), { kind: 'second-device', claimed: 'dev-2' });
  assert.equal(dispatch(helloFrame('dev-1', 's2', 0), 'dev-1'), { kind: 'bound', session: 's2', backlog: 0 });
});

test("once bound: a frame's readings and a lost message's ranges go to the writer, with the backlog", () => {
  assert.equal(dispatch(readings, 'dev-1'), {
    kind: 'bound',
    session: undefined,
    backlog: 4,
    readings: { session: 's1', readings: [{ seq: 1, timestamp: at, value: 'v1' }] },
  });
  assert.equal(dispatch(lost, 'dev-1'), {
    kind: 'bound',
    session: undefined,
    backlog: undefined,
    lost: { session: 's0', reason: 'evicted', ranges: [[1, 3]] },
  });
});

test.run();
