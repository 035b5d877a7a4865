// Drives the MongoDB stand-in with the real driver and raw sockets, in-process and as a CLI process.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { BSON, Long, ObjectId, type Document } from 'bson';
import {
  MongoClient,
  MongoServerError,
  type MongoClientOptions,
  type ServerHeartbeatFailedEvent,
  type ServerHeartbeatSucceededEvent,
} from 'mongodb';
import { startMongoStandin, type MongoStandin, type MongoStandinOptions } from './server.ts';
import { waitFor, withDeadline } from '../../test/support/deadline.ts';
import { spawnProcess, stopAll } from '../../test/support/spawn-process.ts';
import { freePort } from '../../tools/free-port.ts';
import { root } from '../../test/support/spawn-service.ts';

const standins: MongoStandin[] = [];
const clients: MongoClient[] = [];
const sockets: Socket[] = [];

async function standin(options: MongoStandinOptions = {}): Promise<MongoStandin> {
  const started = await startMongoStandin(options);
  standins.push(started);
  return started;
}

/** A driver client that records its heartbeats and server description changes, in order. */
function client(url: string, options: MongoClientOptions = {}) {
  const created = new MongoClient(url, { serverSelectionTimeoutMS: 2000, heartbeatFrequencyMS: 500, ...options });
  clients.push(created);
  const succeeded: Array<{ event: ServerHeartbeatSucceededEvent }> = [];
  const failed: Array<{ event: ServerHeartbeatFailedEvent }> = [];
  const types: Array<{ type: string }> = [];
  created.on('serverHeartbeatSucceeded', (event) => succeeded.push({ event }));
  created.on('serverHeartbeatFailed', (event) => failed.push({ event }));
  created.on('serverDescriptionChanged', (e) => types.push({ type: e.newDescription.type }));
  return { client: created, succeeded, failed, types };
}

const settle = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

test.after.each(async () => {
  for (const s of standins) s.resume();
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(clients.splice(0).map((c) => settle(withDeadline(c.close(), 5000, 'client.close()'))));
  await Promise.all(standins.splice(0).map((s) => s.close()));
  await stopAll();
});

test('the driver connects; ping and buildInfo answer', async () => {
  const { url, port } = await standin();
  assert.is(url, `mongodb://127.0.0.1:${port}`);
  const { client: mongo } = client(url);
  assert.equal(await withDeadline(mongo.db('app').command({ ping: 1 }), 5000, 'ping'), { ok: 1 });
  const info = await withDeadline(mongo.db('admin').command({ buildInfo: 1 }), 5000, 'buildInfo');
  assert.is(info.ok, 1);
  assert.is(info.version, '8.0.0');
});

test('a command it does not speak, a login included, fails with CommandNotFound naming itself', async () => {
  const { url } = await standin();
  const { client: mongo } = client(url);
  const aggregate = await settle(withDeadline(mongo.db('app').command({ aggregate: 'things' }), 5000, 'aggregate'));
  assert.ok('error' in aggregate && aggregate.error instanceof MongoServerError, 'aggregate must reject');
  assert.is(
    aggregate.error.message,
    'aggregate is not supported by the MongoDB stand-in (it speaks only what the backend uses)',
  );
  assert.is(aggregate.error.code, 59);
  assert.is(aggregate.error.codeName, 'CommandNotFound');
  const stats = await settle(withDeadline(mongo.db('app').command({ collStats: 'things' }), 5000, 'collStats'));
  assert.ok('error' in stats && stats.error instanceof MongoServerError, 'collStats must reject');
  assert.match(stats.error.message, /^collStats is not supported by the MongoDB stand-in/);
  const login = client(url.replace('//', '//user:secret@'));
  const auth = await settle(withDeadline(login.client.connect(), 5000, 'connect with credentials'));
  assert.ok('error' in auth && auth.error instanceof Error, 'a login must fail');
  assert.match(auth.error.message, /^sasl\w+ is not supported by the MongoDB stand-in/);
});

test('it keeps what it is given in memory, per stand-in: a new one starts empty', async () => {
  const first = await standin();
  const { client: mongo } = client(first.url);
  await withDeadline(mongo.db('app').collection('things').insertOne({ a: 1 }), 5000, 'insertOne');
  const found = await mongo.db('app').collection('things').find({}).toArray();
  assert.equal(
    found.map((doc) => doc.a),
    [1],
  );
  const second = await standin();
  const { client: other } = client(second.url);
  assert.equal(await other.db('app').collection('things').find({}).toArray(), []);
});

test('onCommand is told each command as it arrives, document sequences merged in', async () => {
  const seen: Document[] = [];
  const { url } = await standin({ onCommand: (command) => seen.push(command) });
  const { client: mongo } = client(url);
  await withDeadline(
    mongo
      .db('app')
      .collection('things')
      .insertMany([{ a: 1 }, { a: 2 }]),
    5000,
    'insertMany',
  );
  const insert = seen.find((command) => 'insert' in command)!;
  assert.is(insert.insert, 'things');
  assert.is(insert.$db, 'app');
  assert.equal(
    (insert.documents as Document[]).map((doc) => doc.a),
    [1, 2],
  );
});

test('streaming monitor: the driver streams its heartbeats (the stand-in holding each: OP_MSG below)', async () => {
  const { url } = await standin();
  const { client: mongo, succeeded, failed } = client(url);
  await withDeadline(mongo.connect(), 5000, 'connect');
  await waitFor(() => succeeded.filter((s) => s.event.awaited).length >= 4, {
    timeout: 6000,
    what: '4 awaited heartbeats',
  });
  // The first heartbeat is the connection handshake; every later one is a streamed reply to the awaitable hello.
  assert.ok(
    succeeded.slice(1).every((s) => s.event.awaited),
    'the driver must use the streaming protocol',
  );
  assert.is(failed.length, 0);
});

test('polling monitor (serverMonitoringMode: poll): plain heartbeats, none streamed', async () => {
  const { url } = await standin();
  const { client: mongo, succeeded } = client(url, { serverMonitoringMode: 'poll' });
  await withDeadline(mongo.connect(), 5000, 'connect');
  await waitFor(() => succeeded.length >= 4, { timeout: 6000, what: '4 polled heartbeats' });
  assert.ok(
    succeeded.every((s) => !s.event.awaited),
    'poll mode must not stream',
  );
});

test(
  "onStream: open once the driver's monitor streams, closed when that connection goes; " +
    'a polling monitor never opens one',
  async () => {
    const changes: Array<{ connectionId: number; open: boolean; heartbeats: number }> = [];
    let heartbeats = 0;
    const server = await standin({ onStream: (change) => changes.push({ ...change, heartbeats }) });
    const { client: mongo, succeeded } = client(server.url);
    mongo.on('serverHeartbeatSucceeded', () => heartbeats++);
    await withDeadline(mongo.connect(), 5000, 'connect');
    await waitFor(() => changes.length > 0, { timeout: 5000, what: 'a stream open' });
    assert.equal(
      changes.map(({ open }) => open),
      [true],
    );
    assert.is(server.streams, 1);
    // The driver streams only after its handshake heartbeat, and every awaited heartbeat comes through it.
    assert.is(changes[0]!.heartbeats, 1, 'the stream opens after the handshake heartbeat, before any awaited one');
    await waitFor(() => succeeded.some((s) => s.event.awaited), { timeout: 5000, what: 'an awaited heartbeat' });
    await withDeadline(mongo.close(), 5000, 'client.close()');
    await waitFor(() => changes.length === 2, { timeout: 3000, what: 'the stream closed' });
    assert.equal(changes[1], {
      connectionId: changes[0]!.connectionId,
      open: false,
      heartbeats: changes[1]!.heartbeats,
    });
    assert.is(server.streams, 0);

    const poller = client(server.url, { serverMonitoringMode: 'poll' });
    await withDeadline(poller.client.connect(), 5000, 'connect (poll)');
    await waitFor(() => poller.succeeded.length >= 3, { timeout: 6000, what: '3 polled heartbeats' });
    assert.is(changes.length, 2, 'a polling monitor must not count as a stream');
    assert.is(server.streams, 0);
  },
);

test('close(): the heartbeat fails and the server turns Unknown', async () => {
  const server = await standin();
  const { client: mongo, succeeded, failed, types } = client(server.url);
  await withDeadline(mongo.connect(), 5000, 'connect');
  await waitFor(() => succeeded.some((s) => s.event.awaited), { timeout: 5000, what: 'an awaited heartbeat' });
  assert.ok(server.connections >= 2, `monitor and pool sockets must be open, saw ${server.connections}`);
  await withDeadline(server.close(), 5000, 'close()');
  assert.is(server.connections, 0);
  // How soon the backend's readiness follows a database gone is test/faults/database.fault.ts's to bound.
  await waitFor(() => failed.length > 0 && types.some((t) => t.type === 'Unknown'), {
    timeout: 10_000,
    what: 'heartbeat failure',
  });
});

test('hang(): nothing is answered while sockets stay open; resume() answers again', async () => {
  const server = await standin();
  const {
    client: mongo,
    succeeded,
    failed,
    types,
  } = client(server.url, { socketTimeoutMS: 600, connectTimeoutMS: 1000 });
  assert.equal(await withDeadline(mongo.db('app').command({ ping: 1 }), 5000, 'ping before hang'), { ok: 1 });
  const open = server.connections;
  server.hang();
  const ping = await settle(withDeadline(mongo.db('app').command({ ping: 1 }), 10_000, 'ping while hung'));
  assert.ok('error' in ping, 'a ping to a hung stand-in must fail');
  // Its socket timeout, not a refused or closed connection: the socket stayed open and nothing came back.
  assert.match(String((ping as { error: Error }).error.message), /timed out/);
  assert.is(server.connections >= open - 1, true, 'hang() must not close sockets');
  await waitFor(() => failed.length > 0, { timeout: 5000, what: 'a heartbeat failure while hung' });
  const succeededBefore = succeeded.length;
  server.resume();
  await waitFor(() => settle(mongo.db('app').command({ ping: 1 })).then((r) => 'value' in r), {
    timeout: 5000,
    what: 'ping after resume',
  });
  await waitFor(() => succeeded.length > succeededBefore && types.at(-1)?.type === 'Standalone', {
    timeout: 5000,
    what: 'heartbeats after resume',
  });
});

// --- the wire protocol itself, over a raw socket ---------------------------------------------------------

const MORE_TO_COME = 1 << 1;
const EXHAUST_ALLOWED = 1 << 16;

interface Reply {
  requestId: number;
  responseTo: number;
  opCode: number;
  flags: number;
  doc: Document;
}

async function raw(port: number) {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  await withDeadline(new Promise((ok) => socket.once('connect', ok)), 2000, 'raw connect');
  const replies: Reply[] = [];
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
      const m = pending.subarray(0, pending.readInt32LE(0));
      pending = pending.subarray(m.length);
      const opCode = m.readInt32LE(12);
      const docAt = opCode === 2013 ? 21 : 36;
      replies.push({
        requestId: m.readInt32LE(4),
        responseTo: m.readInt32LE(8),
        opCode,
        flags: m.readUInt32LE(16),
        doc: BSON.deserialize(m.subarray(docAt)),
      });
    }
  });
  return { socket, replies };
}

function opMsg(requestId: number, flags: number, doc: Document, extra: Buffer[] = []): Buffer {
  const body = Buffer.concat([Buffer.from([0]), BSON.serialize(doc), ...extra]);
  const head = Buffer.alloc(20);
  head.writeInt32LE(20 + body.length, 0);
  head.writeInt32LE(requestId, 4);
  head.writeInt32LE(2013, 12);
  head.writeUInt32LE(flags, 16);
  return Buffer.concat([head, body]);
}

test('OP_QUERY ismaster is answered with OP_REPLY, as the driver handshake expects', async () => {
  const { port } = await standin();
  const { socket, replies } = await raw(port);
  const query = Buffer.concat([
    Buffer.from('admin.$cmd\0'),
    Buffer.alloc(4),
    Buffer.from([0xff, 0xff, 0xff, 0xff]),
    BSON.serialize({ ismaster: 1, helloOk: true }),
  ]);
  const head = Buffer.alloc(20);
  head.writeInt32LE(20 + query.length, 0);
  head.writeInt32LE(7, 4);
  head.writeInt32LE(2004, 12);
  socket.write(Buffer.concat([head, query]));
  await waitFor(() => replies.length === 1, { timeout: 2000, what: 'OP_REPLY' });
  const [reply] = replies;
  assert.is(reply!.opCode, 1);
  assert.is(reply!.responseTo, 7);
  assert.is(reply!.doc.ismaster, true);
  assert.is(reply!.doc.helloOk, true);
  assert.ok(reply!.doc.maxWireVersion >= 9 && reply!.doc.maxWireVersion <= 29, 'wire version the v7 driver accepts');
});

test(
  'OP_MSG: exhaust streaming chains replies with moreToCome; ' + 'checksums, sequences and moreToCome requests',
  async () => {
    const { port } = await standin();
    const { socket, replies } = await raw(port);
    socket.write(opMsg(1, 0, { hello: 1, $db: 'admin' }));
    await waitFor(() => replies.length === 1, { timeout: 2000, what: 'hello reply' });
    const { topologyVersion } = replies[0]!.doc;
    assert.ok(replies[0]!.doc.isWritablePrimary === true && topologyVersion, 'hello must name a topologyVersion');
    // Held: an awaitable hello naming our topologyVersion is not answered at once. Another socket's ping is
    // asked after it and answered before it.
    socket.write(opMsg(2, EXHAUST_ALLOWED, { hello: 1, topologyVersion, maxAwaitTimeMS: 600_000, $db: 'admin' }));
    const other = await raw(port);
    other.socket.write(opMsg(3, 0, { ping: 1, $db: 'admin' }));
    await waitFor(() => other.replies.length === 1, { timeout: 5000, what: 'the other socket’s ping reply' });
    assert.is(replies.length, 1, 'the awaitable hello is held until maxAwaitTimeMS');
    socket.destroy();

    // Streamed: with a short maxAwaitTimeMS, replies follow one another unasked.
    const streaming = await raw(port);
    streaming.socket.write(opMsg(4, EXHAUST_ALLOWED, { hello: 1, topologyVersion, maxAwaitTimeMS: 20, $db: 'admin' }));
    await waitFor(() => streaming.replies.length >= 3, { timeout: 5000, what: 'three streamed hello replies' });
    const streamed = streaming.replies.slice(0, 3);
    assert.is(streamed[0]!.responseTo, 4);
    for (let i = 0; i < streamed.length; i++) {
      assert.is(streamed[i]!.flags & MORE_TO_COME, MORE_TO_COME, 'streamed replies carry moreToCome');
      if (i > 0)
        assert.is(streamed[i]!.responseTo, streamed[i - 1]!.requestId, 'each streamed reply answers the previous one');
    }
    streaming.socket.destroy();

    const second = await raw(port);
    second.socket.write(opMsg(10, MORE_TO_COME, { ping: 1, $db: 'admin' })); // fire-and-forget: no reply
    const sequence = Buffer.concat([Buffer.from('documents\0'), BSON.serialize({ a: 1 })]);
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + sequence.length);
    const withChecksum = opMsg(11, 1, { ping: 1, $db: 'admin' }, [Buffer.from([1]), size, sequence, Buffer.alloc(4)]);
    second.socket.write(withChecksum);
    await waitFor(() => second.replies.length >= 1, { timeout: 2000, what: 'ping reply' });
    assert.is(second.replies.length, 1);
    assert.is(second.replies[0]!.responseTo, 11);
    assert.equal(second.replies[0]!.doc, { ok: 1 });
  },
);

test('OP_MSG: a hello naming another topologyVersion (a restarted server) is answered at once', async () => {
  const { port } = await standin();
  const { socket, replies } = await raw(port);
  const stale = { processId: new ObjectId(), counter: Long.fromNumber(0) };
  // Held, it would not be answered for ten minutes: the deadline is only there to fail instead of hanging.
  socket.write(opMsg(3, 0, { hello: 1, topologyVersion: stale, maxAwaitTimeMS: 600_000, $db: 'admin' }));
  await waitFor(() => replies.length === 1, { timeout: 10_000, what: 'an immediate hello reply' });
  assert.ok(
    !replies[0]!.doc.topologyVersion.processId.equals(stale.processId),
    'the reply names the current processId',
  );
});

// --- the CLI, as a real process ------------------------------------------------------------------------

const cli = (...args: string[]) =>
  spawnProcess(process.execPath, ['--import', 'tsx', 'dev/mongo-standin.ts', ...args], { cwd: root });

test('CLI: prints its one line, answers ping, exits 0 on SIGTERM', async () => {
  const port = await freePort();
  const proc = cli('--port', String(port));
  await waitFor(() => proc.stdout.length > 0 || proc.child.exitCode !== null, {
    timeout: 15000,
    what: 'the listening line',
  });
  assert.equal(proc.stdout, [
    `mongo stand-in listening on mongodb://127.0.0.1:${port} (a stand-in: it keeps data in memory only)`,
  ]);
  const { client: mongo } = client(`mongodb://127.0.0.1:${port}`);
  assert.equal(await withDeadline(mongo.db('app').command({ ping: 1 }), 5000, 'ping the CLI'), { ok: 1 });
  proc.signal('SIGTERM');
  assert.is(await proc.waitExit(5000), 0);
  assert.equal(proc.stderr.filter(Boolean), []);
});

test("CLI: --report-streams prints a line when the driver's streaming hello starts on a connection", async () => {
  const port = await freePort();
  const proc = cli('--port', String(port), '--report-streams');
  await waitFor(() => proc.stdout.length > 0 || proc.child.exitCode !== null, {
    timeout: 15000,
    what: 'the listening line',
  });
  const { client: mongo } = client(`mongodb://127.0.0.1:${port}`);
  await withDeadline(mongo.connect(), 5000, 'connect');
  await waitFor(() => proc.stdout.length > 1, { timeout: 5000, what: 'a stream line' });
  assert.match(proc.stdout[1]!, /^stream open on connection \d+$/);
  await withDeadline(mongo.close(), 5000, 'client.close()');
  const id = proc.stdout[1]!.split(' ').at(-1);
  await waitFor(() => proc.stdout.includes(`stream closed on connection ${id}`), {
    timeout: 3000,
    what: 'the stream-closed line',
  });
  proc.signal('SIGTERM');
  assert.is(await proc.waitExit(5000), 0);
  assert.equal(proc.stderr.filter(Boolean), []);
});

test('CLI: SIGSTOP fails the heartbeat and SIGCONT brings it back, as with a stopped mongod', async () => {
  const port = await freePort();
  const proc = cli('--port', String(port));
  await waitFor(() => proc.stdout.length > 0 || proc.child.exitCode !== null, {
    timeout: 15000,
    what: 'the listening line',
  });
  const { client: mongo, succeeded, failed, types } = client(`mongodb://127.0.0.1:${port}`, { connectTimeoutMS: 1000 });
  await withDeadline(mongo.connect(), 5000, 'connect');
  await waitFor(() => succeeded.some((s) => s.event.awaited), { timeout: 5000, what: 'an awaited heartbeat' });
  proc.signal('SIGSTOP');
  await waitFor(() => failed.length > 0 && types.at(-1)?.type === 'Unknown', {
    timeout: 6000,
    what: 'Unknown while stopped',
  });
  // The streamed hello times out after connectTimeoutMS + maxAwaitTimeMS (1000 + 500 ms): a timeout, the socket open.
  assert.match(String(failed[0]!.event.failure?.message), /timed out/);
  proc.signal('SIGCONT');
  await waitFor(() => types.at(-1)?.type === 'Standalone', { timeout: 10_000, what: 'Standalone after SIGCONT' });
  assert.equal(await withDeadline(mongo.db('app').command({ ping: 1 }), 5000, 'ping after SIGCONT'), { ok: 1 });
});

test('CLI: a busy port is one line on stderr and exit 1', async () => {
  const busy = await standin();
  const proc = cli('--port', String(busy.port));
  assert.is(await proc.waitExit(15000), 1);
  assert.equal(proc.stdout.filter(Boolean), []);
  assert.equal(proc.stderr.filter(Boolean), [
    `mongo stand-in: cannot listen on 127.0.0.1:${busy.port}: the port is already in use`,
  ]);
});

for (const flag of ['--help', '-h']) {
  test(`CLI: ${flag} prints the usage on stdout and exits 0`, async () => {
    const proc = cli(flag);
    assert.is(await proc.waitExit(15000), 0);
    assert.is(proc.stdout[0], 'usage: mongo-standin [--port N] [--host H] [--report-streams] [--hello-delay-ms N]');
    assert.match(proc.stdout.join('\n'), /--port N .*\n.*--host H /);
    assert.equal(proc.stderr.filter(Boolean), []);
  });
}

test('CLI: an unknown option or a missing value is one line on stderr, exit 1', async () => {
  for (const [args, line] of [
    [['--verbose'], 'mongo stand-in: unknown option --verbose (run with --help to list the options)'],
    [['--port'], 'mongo stand-in: --port needs a value (write --port=-x for one starting with "-")'],
  ] as const) {
    const proc = cli(...args);
    assert.is(await proc.waitExit(15000), 1, args.join(' '));
    assert.equal(proc.stdout.filter(Boolean), []);
    assert.equal(proc.stderr.filter(Boolean), [line]);
  }
});

test('CLI: a bad --port is one line on stderr and exit 1, read as the services read PORT', async () => {
  // Number() took hex, exponents and the empty string: --port 0x10 listened on port 16.
  for (const args of [
    ['--port', 'abc'],
    ['--port', '0x10'],
    ['--port', '1e3'],
    ['--port='],
    ['--port', ' 80'],
    ['--port', '70000'],
  ]) {
    const proc = cli(...args);
    assert.is(await proc.waitExit(15000), 1, args.join(' '));
    assert.equal(proc.stdout.filter(Boolean), [], args.join(' '));
    const value = args.length === 1 ? '' : args[1];
    assert.equal(proc.stderr.filter(Boolean), [
      `mongo stand-in: --port must be an integer from 0 to 65535, got "${value}"`,
    ]);
  }
});

test('CLI: a bad --hello-delay-ms is one line on stderr and exit 1', async () => {
  for (const value of ['-1', '1.5', '0x10', '']) {
    const proc = cli(`--hello-delay-ms=${value}`);
    assert.is(await proc.waitExit(15000), 1, value);
    assert.equal(proc.stderr.filter(Boolean), [
      `mongo stand-in: --hello-delay-ms must be a whole number of milliseconds, got "${value}"`,
    ]);
  }
});

test.run();
