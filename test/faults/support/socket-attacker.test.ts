// The slow socket attacker ends only once the backend has stored all it sent: a backend drops what it has not
// stored when a socket closes, and this client, unlike a device, never sends it again.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MongoClient } from 'mongodb';
import { startMongoStandin, type MongoStandin } from '../../../dev/mongo-standin/server.ts';
import { spawnService, root, TEST_DEVICE_TOKEN, type Service } from '../../support/spawn-service.ts';
import { spawnProcess, stopAll } from '../../support/spawn-process.ts';
import { waitFor } from '../../support/deadline.ts';

const READINGS = 5;
let mongo: MongoStandin | undefined;
let backend: Service | undefined;

test.after(async () => {
  mongo?.resume();
  await stopAll();
  await mongo?.close();
});

test('a slow client that closes with readings still queued behind a write: it waits for their ack', async () => {
  let inserts = 0;
  // The first insert is answered; the summary update after it is not, until resume(): the readings that arrive
  // meanwhile wait in the backend's queue, behind a write in flight.
  mongo = await startMongoStandin({
    onCommand: (command) => {
      if ('insert' in command && ++inserts === 1) mongo!.hang();
    },
  });
  backend = await spawnService('backend/main.ts', { env: { MONGODB_URI: `${mongo.url}/app` } });
  const attacker = spawnProcess(
    process.execPath,
    ['--import', 'tsx', 'test/faults/support/socket-attacker.ts', 'slow', backend.url, String(READINGS)],
    { cwd: root, env: { ...process.env, ATTACK_TOKEN: TEST_DEVICE_TOKEN } },
  );
  // Every reading sent: the client has said so, or (one that does not wait) it has gone.
  await waitFor(() => attacker.child.exitCode !== null || attacker.lines.some((l) => l.startsWith('sent ')), {
    timeout: 20_000,
    what: 'the slow client to have sent every reading',
  });
  // And the hang begun: on a busy machine the backend's first insert can come after the last reading was sent, and
  // a resume() before it would leave the stand-in hung from then on, with no ack ever sent.
  await waitFor(() => inserts > 0, { timeout: 20_000, what: "the backend's first insert" });
  mongo.resume();
  assert.is(await attacker.waitExit(30_000), 0, attacker.lines.join('\n'));
  const client = new MongoClient(mongo.url, { serverSelectionTimeoutMS: 2000 });
  try {
    const stored = await client.db('app').collection('readings').find({ deviceId: 'slow-reader' }).toArray();
    assert.equal(
      stored.map((r) => r.seq),
      [1, 2, 3, 4, 5],
      'every reading the client sent is stored',
    );
  } finally {
    await client.close();
  }
});

test.run();
