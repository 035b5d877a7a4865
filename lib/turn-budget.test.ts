// The turn budget: pieces asked for together start one per loop turn, with the loop's other work between them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createServer, request } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createTurnBudget, hasRoom } from './turn-budget.ts';

test('room: as many pieces as allowed per turn', () => {
  assert.ok(hasRoom(0, 1));
  assert.not.ok(hasRoom(1, 1));
  assert.ok(hasRoom(1, 2));
});

/** Asks for three pieces at once; each logs when it starts and when the turn after its start comes. */
async function threePieces(options?: { perTurn: number }): Promise<string[]> {
  const budget = createTurnBudget(options);
  const events: string[] = [];
  const pieces = [1, 2, 3].map((n) =>
    budget.turn().then(() => {
      events.push(`piece ${n}`);
      setImmediate(() => events.push(`after ${n}`));
    }),
  );
  await Promise.all(pieces);
  await nextTurn();
  return events;
}

test('pieces asked for at once start in turns of their own, work queued by one running before the next', async () => {
  const events = await threePieces();
  assert.equal(events, ['piece 1', 'after 1', 'piece 2', 'after 2', 'piece 3', 'after 3']);
});

test('two per turn: pairs', async () => {
  const events = await threePieces({ perTurn: 2 });
  assert.equal(events, ['piece 1', 'piece 2', 'after 1', 'after 2', 'piece 3', 'after 3']);
});

test('an HTTP request arriving during a burst is answered before the burst is over', async () => {
  const budget = createTurnBudget();
  const server = createServer((_req, res) => res.end('ok'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const events: string[] = [];
    const answered = new Promise<void>((resolve) => {
      request({ port: (server.address() as AddressInfo).port, host: '127.0.0.1' }, (res) => {
        res.resume();
        res.on('end', () => resolve(void events.push('answered')));
      }).end();
    });
    await new Promise((resolve) => setTimeout(resolve, 0)); // the request is on its way before the burst starts
    const busy = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    const pieces = Array.from({ length: 200 }, (_, n) =>
      budget.turn().then(() => {
        busy(5);
        events.push(`piece ${n}`);
      }),
    );
    await Promise.all([answered, ...pieces]);
    const at = events.indexOf('answered');
    assert.ok(at >= 0 && at < events.length - 1, `answered at ${at} of ${events.length}: after the whole burst`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test.run();
