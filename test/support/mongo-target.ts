// The MongoDB a database test talks to: the in-process stand-in, or the real server MONGO_TEST_URI names (the
// container tests start the `mongo` image and run the same test files against it). Each test gets a database of
// its own, dropped afterwards, so a real server is left as it was found.
import { suite } from 'uvu';
import { MongoClient, type CommandStartedEvent, type Document, type MongoClientOptions } from 'mongodb';
import { startMongoStandin, type MongoStandin } from '../../dev/mongo-standin/server.ts';

export interface MongoTarget {
  /** `mongodb://host:port`, without a database. */
  url: string;
  /** The stand-in when the test runs against it; undefined against a real server. */
  standin: MongoStandin | undefined;
  /** What the tests run against, printed once: `in-process stand-in` or `MONGO_TEST_URI (…)`. */
  label: string;
  /** A client recording every command it sends but the handshake and monitoring (`commands`). */
  client(options?: MongoClientOptions): { client: MongoClient; commands: CommandStartedEvent[] };
  /** A database name not used before in this process. */
  database(): string;
  /** Drops the databases handed out, closes the clients and the stand-in. */
  close(): Promise<void>;
}

const MONITORING = new Set(['hello', 'isMaster', 'ismaster', 'endSessions']);
let used = 0;

export async function mongoTarget(): Promise<MongoTarget> {
  const real = process.env.MONGO_TEST_URI;
  const standin = real ? undefined : await startMongoStandin();
  const url = real ?? standin!.url;
  const clients: MongoClient[] = [];
  const databases: string[] = [];
  return {
    url,
    standin,
    label: real ? `MONGO_TEST_URI (${real})` : 'in-process stand-in',
    client(options = {}) {
      const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000, monitorCommands: true, ...options });
      const commands: CommandStartedEvent[] = [];
      client.on('commandStarted', (event) => {
        if (!MONITORING.has(event.commandName)) commands.push(event);
      });
      clients.push(client);
      return { client, commands };
    },
    database() {
      const name = `shk_test_${process.pid}_${++used}`;
      databases.push(name);
      return name;
    },
    async close() {
      const [first] = clients;
      if (first && databases.length > 0) {
        await Promise.allSettled(databases.map((name) => first.db(name).dropDatabase()));
      }
      await Promise.allSettled(clients.splice(0).map((client) => client.close()));
      await standin?.close();
    },
  };
}

/**
 * A uvu suite against the MongoDB target: connected before its first test, cleaned up after its last. `fresh()` is a
 * collection in a database of its own, with its client and the commands that client sends; `standin()` is the
 * stand-in, or undefined against a real server.
 */
export function mongoSuite(name: string) {
  let target: MongoTarget;
  const test = suite(name);
  test.before(async () => {
    target = await mongoTarget();
    console.log(`    against the ${target.label}`);
  });
  test.after(() => target.close());
  const fresh = (collectionName = 'things') => {
    const { client, commands } = target.client();
    const db = client.db(target.database());
    return { db, collection: db.collection(collectionName), commands, client };
  };
  return { test, fresh, standin: () => target.standin };
}

/** A command as the driver sent it, without what every command carries (session, cluster time, database). */
export function commandShape(event: CommandStartedEvent): Document {
  const {
    lsid: _lsid,
    $clusterTime: _time,
    $db: _db,
    $readPreference: _read,
    txnNumber: _txn,
    ...rest
  } = event.command;
  return rest;
}
