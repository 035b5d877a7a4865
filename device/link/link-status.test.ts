// The link's status without a socket: the state and reason each socket end leaves, and which line it logs at
// which level, on a fake clock.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLinkStatus } from './link-status.ts';

function setup() {
  let t = 1000;
  const status = createLinkStatus({ url: 'ws://b/api/device/socket', tokenSent: true, now: () => t });
  return { status, advance: (ms: number) => (t += ms) };
}
const retry = (attempt: number) => ({ delayMs: 10 * attempt, attempt });

test('an opened socket reports how long the link was down, counted from start or from the last loss', () => {
  const { status, advance } = setup();
  status.start();
  advance(250);
  assert.equal(status.opened(), { downMs: 250 });
  advance(5000);
  const lost = status.closed({ opened: true, code: 1006 }, retry(1));
  assert.equal([lost.state, lost.why, lost.line?.level], ['disconnected', 'closed (1006)', 'warn']);
  advance(40);
  assert.equal(status.opened(), { downMs: 40 });
});

test('a socket closed with 1013 says the backend dropped what it held', () => {
  const { status } = setup();
  const { line, why } = status.closed({ opened: true, code: 1013, why: 'overloaded' }, retry(1));
  assert.is(why, 'closed (1013): overloaded');
  assert.match(line!.msg, /^backend socket closed: the backend dropped what it held; reconnecting/);
  assert.equal(line!.fields, { url: 'ws://b/api/device/socket', code: 1013, reason: 'overloaded' });
});

test('a refused token: unauthorized, warned once per run of refusals, then debug lines', () => {
  const { status } = setup();
  const levels = [1, 2, 3].map((n) => status.closed({ opened: false, refusedWith: 401, code: 1006 }, retry(n)));
  assert.equal(
    levels.map((c) => [c.state, c.line!.level]),
    [
      ['unauthorized', 'warn'],
      ['unauthorized', 'debug'],
      ['unauthorized', 'debug'],
    ],
  );
  assert.equal(levels[0]!.why, 'the backend refused the token (HTTP 401)');
  assert.equal(levels[0]!.line!.fields, {
    url: 'ws://b/api/device/socket',
    tokenSent: true,
    retryInMs: 10,
    attempt: 1,
  });
  status.opened();
  const again = status.closed({ opened: false, refusedWith: 401, code: 1006 }, retry(1));
  assert.is(again.line!.level, 'warn', 'a new run of refusals after a connection warns again');
});

test('an unavailable backend: the first attempt warns with the cause, the retries are debug lines', () => {
  const { status } = setup();
  const first = status.closed({ opened: false, code: 1006, why: 'connect ECONNREFUSED' }, retry(1));
  assert.equal(
    [first.state, first.why, first.line!.level],
    ['disconnected', 'closed (1006): connect ECONNREFUSED', 'warn'],
  );
  assert.is(first.line!.fields.reason, 'connect ECONNREFUSED');
  const second = status.closed({ opened: false, refusedWith: 503, code: 1006 }, retry(2));
  assert.equal([second.why, second.line!.level], ['the backend answered the upgrade with HTTP 503', 'debug']);
  assert.is(second.line!.fields.reason, 'answered the upgrade with 503');
});

test('closing for good reports the state and logs nothing', () => {
  const { status } = setup();
  assert.equal(status.closed({ opened: true, code: 1001 }, undefined), { state: 'disconnected', why: 'closed (1001)' });
});

test.run();
