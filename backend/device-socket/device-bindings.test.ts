// Which socket speaks for which device, without I/O: the token rules, a newer socket taking a device over, an older
// socket's close changing nothing, and what a message changes (a session: told now; a backlog: the next beat).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HelloMessage } from '../../lib/device-protocol.ts';
import { createDeviceBindings, presenceOf } from './device-bindings.ts';

const hello = (deviceId: string, session = 's1', backlog?: number): HelloMessage => ({
  type: 'hello',
  deviceId,
  session,
  ...(backlog === undefined ? {} : { backlog }),
});
function bindings(tokens?: ReadonlyMap<string, string>) {
  let n = 0;
  return createDeviceBindings<string>(tokens, () => `c${++n}`);
}

test("refusal: a device's own token speaks for it alone; the shared token for devices without their own", () => {
  const b = bindings(new Map([['dev-own', 'token-own']]));
  assert.is(b.refusal(hello('dev-own'), { deviceId: 'dev-own' }), undefined);
  assert.is(b.refusal(hello('dev-2'), { deviceId: 'dev-own' }), 'token of another device');
  assert.is(b.refusal(hello('dev-own'), { deviceId: undefined }), 'device has its own token');
  assert.is(b.refusal(hello('dev-2'), { deviceId: undefined }), undefined);
});

test('a newer socket takes a device over; the older one speaking again holds it, under the same connection', () => {
  const b = bindings();
  assert.equal(b.bind(hello('dev-1', 's1', 4), 'ws-a'), {
    deviceId: 'dev-1',
    session: 's1',
    socket: 'ws-a',
    connection: 'c1',
    backlog: 4,
  });
  b.bind(hello('dev-1', 's2'), 'ws-b');
  assert.is(b.get('dev-1')?.connection, 'c2');
  assert.is(b.get('dev-1')?.backlog, null, 'a hello without a backlog: not known');
  assert.is(b.touch('dev-1', 'ws-a'), undefined, 'nothing to tell the collection');
  assert.is(b.get('dev-1')?.socket, 'ws-a');
  assert.is(b.touch('dev-1', 'ws-b', 's2'), undefined, 'back to ws-b, its session unchanged');
  assert.is(b.touch('dev-1', 'ws-a', 's1'), 'session');
  assert.is(b.release('dev-1', 'ws-b'), undefined, 'the close of a socket that does not hold it changes nothing');
  assert.is(b.release('dev-1', 'ws-a')?.connection, 'c2');
  assert.is(b.get('dev-1'), undefined);
  assert.is(b.touch('dev-1', 'ws-b'), 'rebind', 'a socket left open after the holder closed binds it again');
});

test('touch: a backlog is kept for the next beat; a new session is to be told now', () => {
  const b = bindings();
  b.bind(hello('dev-1'), 'ws');
  assert.is(b.touch('dev-1', 'ws', undefined, 7), undefined);
  assert.is(b.get('dev-1')?.backlog, 7);
  assert.is(b.touch('dev-1', 'ws', 's1'), undefined, 'the same session');
  assert.is(b.touch('dev-1', 'ws', 's2'), 'session');
  assert.is(b.get('dev-1')?.session, 's2');
});

test('clear forgets every record and returns them; presenceOf is what the collection is told', () => {
  const b = bindings();
  b.bind(hello('dev-1'), 'ws-1');
  b.bind(hello('dev-2', 's9', 3), 'ws-2');
  assert.equal(
    b.held().map((r) => r.deviceId),
    ['dev-1', 'dev-2'],
  );
  const [, second] = b.clear();
  assert.equal(b.held(), []);
  const at = new Date(0);
  assert.equal(presenceOf(second!, false, 'host:1', at), {
    deviceId: 'dev-2',
    session: 's9',
    connected: false,
    replica: 'host:1',
    connection: 'c2',
    backlog: 3,
    at,
  });
});

test.run();
