// The link's status without a socket: the state and reason each socket end leaves, and which line it logs at
// which level, on a fake clock.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLinkStatus, REPEATED_CLOSE_MS, type StatusLine } from './link-status.ts';

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

test('a socket closed with 1013 says what the reason says; with none, that the backend dropped what it held', () => {
  const { status, advance } = setup();
  const { line, why } = status.closed({ opened: true, code: 1013, why: 'device thread restarting' }, retry(1));
  assert.is(why, 'closed (1013): device thread restarting');
  assert.match(line!.msg, /^backend socket closed: device thread restarting; reconnecting/);
  assert.equal(line!.fields, { url: 'ws://b/api/device/socket', code: 1013, reason: 'device thread restarting' });
  advance(REPEATED_CLOSE_MS);
  const bare = status.closed({ opened: true, code: 1013 }, retry(1)).line!;
  assert.match(bare.msg, /^backend socket closed: the backend dropped what it held; reconnecting/);
});

test('the per-token bound, closing each socket at once: its reason in one line per 5 s, summed', () => {
  const { status, advance } = setup();
  const reason = "too many sockets for this device's token (DEVICE_SOCKETS_PER_TOKEN 4 open)";
  const lines: (StatusLine | undefined)[] = [];
  for (let i = 0; i < 30; i++) {
    lines.push(status.closed({ opened: true, code: 1013, why: reason }, retry(1)).line);
    advance(200);
  }
  const logged = lines.filter((line) => line !== undefined);
  assert.equal(
    logged.map((line) => line.msg),
    [
      `backend socket closed: ${reason}; reconnecting to resend from the oldest unacknowledged reading`,
      `backend socket closed: ${reason} (and 24 times more in the last 5 s); reconnecting to resend from the oldest ` +
        'unacknowledged reading',
    ],
    'the first at once; the 24 after it within 5 s left out, and counted in the next',
  );
  assert.equal(logged[1]!.fields.repeated, 24);
  const other = status.closed({ opened: true, code: 1006, why: 'read ECONNRESET' }, retry(1)).line!;
  assert.equal([other.msg.split(';')[0], other.fields.repeated], ['backend socket closed: read ECONNRESET', undefined]);
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
