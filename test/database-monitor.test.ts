// The backend's database monitor against the real stand-in process: a busy database (late heartbeats, writes
// answered) and a blocked event loop stay connected; silence with no reply at all, or a hung server, does not.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  createDatabaseMonitor,
  type DatabaseMonitor,
  type DatabaseState,
} from '../backend/database/database-monitor.ts';
import { startMongoProcess, type MongoProcess } from './support/mongo-process.ts';
import { createLogSink } from './support/log-sink.ts';
import { freePort } from '../tools/free-port.ts';
import { waitFor } from './support/deadline.ts';

// The stand-in answers the monitor 1.5 s late: a heartbeat every 2 s, past the 1.5 s bound, inside the
// driver's own 2.5 s socket timeout.
const LATE_HELLO = ['--hello-delay-ms', '1500'];
const HEARTBEATS_WATCHED = 3;

interface Watched {
  monitor: DatabaseMonitor;
  changes: Array<{ state: DatabaseState; reason: string }>;
  heartbeats(): number;
}

let standin: MongoProcess | undefined;
let watched: Watched | undefined;

async function start(extraArgs: string[] = []): Promise<Watched> {
  standin = await startMongoProcess(await freePort(), 'app', extraArgs);
  const changes: Watched['changes'] = [];
  const monitor = createDatabaseMonitor({
    uri: standin.uri,
    log: createLogSink('silent', 'backend').log,
    onState: (state, reason) => changes.push({ state, reason }),
  });
  let heartbeats = 0;
  monitor.client.on('serverHeartbeatSucceeded', () => heartbeats++);
  watched = { monitor, changes, heartbeats: () => heartbeats };
  await waitFor(() => monitor.state() === 'connected', { timeout: 10_000, what: 'monitor connected' });
  await standin.streaming({ timeout: 10_000 });
  return watched;
}

/** Waits until `count` more heartbeats have succeeded (each one 2 s apart with the late stand-in). */
async function heartbeatsPass({ heartbeats }: Watched, count: number): Promise<void> {
  const target = heartbeats() + count;
  await waitFor(() => heartbeats() >= target, { timeout: 30_000, what: `${count} more heartbeats` });
}

/** Inserts one document after another until stopped; resolves with how many were acknowledged. */
function keepWriting({ monitor }: Watched): { stop(): Promise<number> } {
  const collection = monitor.client.db('app').collection('burst');
  let writing = true;
  const written = (async () => {
    let acknowledged = 0;
    while (writing) {
      await collection.insertOne({ at: new Date() });
      acknowledged++;
    }
    return acknowledged;
  })();
  return {
    stop: async () => {
      writing = false;
      return written;
    },
  };
}

const test = suite('database monitor against the stand-in process');

test.after.each(async () => {
  standin?.signal('SIGCONT');
  await watched?.monitor.close();
  await standin?.stop();
  standin = undefined;
  watched = undefined;
});

test('heartbeats late while writes are answered: stays connected', async () => {
  const busy = await start(LATE_HELLO);
  const writer = keepWriting(busy);
  await heartbeatsPass(busy, HEARTBEATS_WATCHED);
  const acknowledged = await writer.stop();
  assert.ok(acknowledged > 0, 'no write was acknowledged');
  assert.equal(busy.changes, [{ state: 'connected', reason: 'heartbeat succeeded' }]);
});

test('heartbeats late and no writes: the silence is noticed', async () => {
  const quiet = await start(LATE_HELLO);
  await waitFor(() => quiet.monitor.state() === 'disconnected', { timeout: 15_000, what: 'disconnected' });
  assert.match(quiet.changes[1]?.reason ?? '', /^no reply for \d+ ms \(bound 1500 ms\)$/);
});

test('the event loop blocked for 3 s: stays connected', async () => {
  const blocked = await start();
  // Blocks this process, as a burst of synchronous work would; the stand-in answers on time meanwhile.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3000);
  await heartbeatsPass(blocked, 2);
  assert.equal(blocked.changes, [{ state: 'connected', reason: 'heartbeat succeeded' }]);
});

test('the stand-in hung (SIGSTOP): disconnected', async () => {
  const hung = await start();
  hung.changes.length = 0;
  standin!.signal('SIGSTOP');
  await waitFor(() => hung.monitor.state() === 'disconnected', { timeout: 15_000, what: 'disconnected' });
  assert.match(hung.changes[0]?.reason ?? '', /^no reply for \d+ ms/);
});

test.run();
