import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MongoClient } from 'mongodb';
import { rejection, sleep, waitFor } from '../../test/support/deadline.ts';
import { startMongoProcess, type MongoProcess } from '../../test/support/mongo-process.ts';
import { freePort } from '../../tools/free-port.ts';
import { connectUntilClosed } from './connect-until-closed.ts';

const FAST = { serverSelectionTimeoutMS: 300, connectTimeoutMS: 300 };
const clients: MongoClient[] = [];
const standins: MongoProcess[] = [];

async function nothingListening(): Promise<{ client: MongoClient; port: number }> {
  const port = await freePort();
  const client = new MongoClient(`mongodb://127.0.0.1:${port}/app`, FAST);
  clients.push(client);
  return { client, port };
}

async function standinOn(port: number): Promise<void> {
  standins.push(await startMongoProcess(port));
}

const ping = (client: MongoClient) => client.db('app').command({ ping: 1 });

test.after.each(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(standins.splice(0).map((standin) => standin.stop()));
});

test('why: left to connect on its first operation, a client whose first attempt failed stays closed', async () => {
  const { client, port } = await nothingListening();
  await rejection(ping(client));
  await standinOn(port);
  // If this fails, the driver connects such a client again by itself, and connect-until-closed.ts may go.
  assert.match((await rejection(ping(client))).message, /Topology is closed/);
});

test('connected again and again until the database is there: then its operations work', async () => {
  const { client, port } = await nothingListening();
  connectUntilClosed(client, { retryMs: 50 });
  await rejection(ping(client)); // a write while the database is away, as the device thread's can be
  await standinOn(port);
  await waitFor(
    () =>
      ping(client).then(
        () => true,
        () => false,
      ),
    { timeout: 10_000, what: 'a ping answered' },
  );
});

test('each failed attempt is told; after close() no attempt is made and the client stays closed', async () => {
  const { client, port } = await nothingListening();
  const failures: string[] = [];
  const connection = connectUntilClosed(client, { retryMs: 50, onFailure: (error) => failures.push(error.name) });
  await waitFor(() => failures.length >= 2, { timeout: 10_000, what: 'two failed attempts' });
  await connection.close();
  const told = failures.length;
  await standinOn(port);
  await sleep(500); // ten retry periods
  assert.is(failures.length, told, 'no failure told after close()');
  await rejection(ping(client)); // had an attempt been made, it would have connected
});

test.run();
