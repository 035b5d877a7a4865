// A MongoDB wire-protocol stand-in for tests and local runs. It is NOT MongoDB: it keeps what it is given in this
// process's memory only (gone when it stops; nothing is written to disk, nothing is journaled or replicated).
//
// No mongod binary can be installed where the tests run, so the official driver is pointed at this small
// server instead. It speaks just enough of the protocol for the driver's connection handshake and server
// monitoring to behave as they do against a standalone mongod: OP_QUERY→OP_REPLY for the legacy first
// `ismaster`, OP_MSG for everything after it, the awaitable `hello` with `topologyVersion` and
// `maxAwaitTimeMS`, and exhaust streaming (`exhaustAllowed` → replies flagged `moreToCome`).
// It can report when a client's streaming hello starts and ends on a connection (see `onStream`), so a test
// can wait for the driver's monitor to be streaming instead of sleeping.
// It answers hello/isMaster, ping, buildInfo and endSessions, and the data commands the backend uses
// (crud-commands.ts: insert, update, findAndModify, find, getMore, killCursors, count, distinct, createIndexes,
// listIndexes, drop, dropDatabase) as mongod words them; every other command (aggregate, delete, saslStart…) fails
// with CommandNotFound, naming itself. The containers run the real `mongo` image wherever it can be pulled.
//
// Its CLI is dev/mongo-standin.ts: node --import tsx dev/mongo-standin.ts [--port N] [--host H]
import { createServer, type Socket } from 'node:net';
import { BSON, Long, ObjectId, type Document } from 'bson';
import { createCrudCommands } from './crud-commands.ts';

export interface MongoStandin {
  port: number;
  /** `mongodb://HOST:PORT`, ready for `new MongoClient(url)`. */
  url: string;
  /** Open client sockets right now. */
  readonly connections: number;
  /** Connections on which a client's streaming hello is in progress right now (the driver's live monitor). */
  readonly streams: number;
  /** Stop answering anything (requests queue up unread) while every socket stays open: a SIGSTOPped mongod. */
  hang(): void;
  /** Answer again, starting with whatever queued up during the hang. */
  resume(): void;
  /** Destroys every socket and stops listening. */
  close(): Promise<void>;
}

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;
const CHECKSUM_PRESENT = 1 << 0;
const MORE_TO_COME = 1 << 1;
const EXHAUST_ALLOWED = 1 << 16;
const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;
const MAX_MESSAGE_SIZE = 48_000_000;
// mongod lets a reply pass its 16 MiB object limit by this much, room for the fields around the documents.
const REPLY_HEADROOM = 16 * 1024;
// Wire version 25 is MongoDB 8.0, inside the 9..29 range the v7 driver accepts.
const MAX_WIRE_VERSION = 25;

interface Request {
  requestId: number;
  opCode: number;
  flags: number;
  command: Document;
}

interface Connection {
  id: number;
  socket: Socket;
  pending: Buffer;
  /** Chunks read since, joined onto `pending` only once the message in progress (`need` bytes) can be whole. */
  chunks: Buffer[];
  chunkBytes: number;
  need: number;
  timer?: NodeJS.Timeout;
  /** A streaming hello (exhaustAllowed) is in progress: the client is waiting for its next reply. */
  streaming: boolean;
}

export interface MongoStandinOptions {
  port?: number;
  host?: string;
  /**
   * Told when a streaming hello (awaitable, exhaustAllowed) starts on a connection and when it ends (the
   * connection closed or sent another request). While one is open the driver's monitor is waiting on that
   * socket, so a server that dies is noticed at once; before the first one, only at the driver's next check.
   */
  onStream?: (change: { connectionId: number; open: boolean }) => void;
  /** Told every command as it arrives (after OP_MSG sections are merged in), before it is answered. */
  onCommand?: (command: Document) => void;
  /**
   * Answers each awaited hello (the driver's monitor) this much later than asked, while every other command is
   * answered as usual: a mongod so busy that its monitoring replies come late, yet alive.
   */
  helloDelayMs?: number;
}

let nextResponseId = 1;

export async function startMongoStandin({
  port = 0,
  host = '127.0.0.1',
  onStream,
  onCommand,
  helloDelayMs = 0,
}: MongoStandinOptions = {}): Promise<MongoStandin> {
  // A fresh processId per start, as mongod does per process: the driver treats a change as a restart.
  const topologyVersion = { processId: new ObjectId(), counter: Long.fromNumber(0) };
  const connections = new Set<Connection>();
  const deferred: Array<() => void> = [];
  let hung = false;
  let lastConnectionId = 0;
  let streams = 0;
  const crud = createCrudCommands();

  const setStreaming = (conn: Connection, streaming: boolean) => {
    if (conn.streaming === streaming) return;
    conn.streaming = streaming;
    streams += streaming ? 1 : -1;
    onStream?.({ connectionId: conn.id, open: streaming });
  };

  /** Runs `action` now, or after resume() while hung — so no byte leaves a hung stand-in. */
  const whenAwake = (action: () => void) => (hung ? deferred.push(action) : action());

  function helloReply(conn: Connection, command: Document, name: string): Document {
    return {
      // mongod answers the legacy command with `ismaster` and `hello` with `isWritablePrimary`.
      ...(name === 'hello' ? { isWritablePrimary: true } : { ismaster: true }),
      ...(command.helloOk === true ? { helloOk: true } : {}),
      topologyVersion,
      maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
      maxMessageSizeBytes: MAX_MESSAGE_SIZE,
      maxWriteBatchSize: 100_000,
      localTime: new Date(),
      logicalSessionTimeoutMinutes: 30,
      connectionId: conn.id,
      minWireVersion: 0,
      maxWireVersion: MAX_WIRE_VERSION,
      readOnly: false,
      ok: 1,
    };
  }

  function answer(conn: Connection, request: Request): void {
    const { command } = request;
    const name = Object.keys(command)[0] ?? '';
    const reply = (doc: Document) => void send(conn, request, doc);
    onCommand?.(command);
    const data = crud.answer(name, command);
    if (data) return reply(data);
    switch (name) {
      case 'hello':
      case 'isMaster':
      case 'ismaster':
        return answerHello(conn, request, name);
      case 'ping':
      case 'endSessions':
        return reply({ ok: 1 });
      case 'buildInfo':
      case 'buildinfo':
        return reply(buildInfo());
      default:
        return reply({
          ok: 0,
          errmsg:
            `${name || '(empty command)'} is not supported by the MongoDB stand-in ` +
            '(it speaks only what the backend uses)',
          code: 59,
          codeName: 'CommandNotFound',
        });
    }
  }

  // The awaitable hello: a client that already knows our topologyVersion is answered after maxAwaitTimeMS
  // (nothing here ever changes), one with an older one at once; with exhaustAllowed the reply carries
  // moreToCome and another follows every maxAwaitTimeMS unasked until the socket closes — mongod's streaming.
  function answerHello(conn: Connection, request: Request, name: string): void {
    const { command } = request;
    const known = command.topologyVersion as { processId?: unknown; counter?: unknown } | undefined;
    const waitMs = Math.max(0, Number(command.maxAwaitTimeMS));
    if (known == null || !Number.isFinite(waitMs)) return void send(conn, request, helloReply(conn, command, name));
    const current =
      known.processId instanceof ObjectId &&
      known.processId.equals(topologyVersion.processId) &&
      (typeof known.counter === 'number' || Long.isLong(known.counter)) &&
      Long.fromValue(known.counter).equals(topologyVersion.counter);
    const stream = request.opCode === OP_MSG && (request.flags & EXHAUST_ALLOWED) !== 0;
    if (stream) setStreaming(conn, true);
    let respondTo = request.requestId;
    const tick = (delay: number) => {
      conn.timer = setTimeout(
        () =>
          whenAwake(() => {
            if (conn.socket.destroyed) return;
            respondTo = send(conn, { ...request, requestId: respondTo }, helloReply(conn, command, name), stream);
            if (stream) tick(waitMs + helloDelayMs);
          }),
        delay,
      );
    };
    tick(current ? waitMs + helloDelayMs : 0);
  }

  /** Writes one reply in the request's protocol and returns its requestID (the next streamed reply answers it). */
  function send(conn: Connection, request: Request, doc: Document, moreToCome = false): number {
    if (request.opCode === OP_MSG && (request.flags & MORE_TO_COME) !== 0) return 0; // the client wants no reply
    const id = nextResponseId++;
    const body = BSON.serialize(tooLarge(doc) ?? doc);
    const isMsg = request.opCode === OP_MSG;
    const head = Buffer.alloc(isMsg ? 21 : 36);
    head.writeInt32LE(head.length + body.length, 0);
    head.writeInt32LE(id, 4);
    head.writeInt32LE(request.requestId, 8);
    head.writeInt32LE(isMsg ? OP_MSG : OP_REPLY, 12);
    if (isMsg) {
      head.writeUInt32LE(moreToCome ? MORE_TO_COME : 0, 16);
      head.writeUInt8(0, 20); // section kind 0: the body document
    } else {
      head.writeInt32LE(1, 32); // responseFlags 0, cursorID 0, startingFrom 0, numberReturned 1
    }
    conn.socket.write(Buffer.concat([head, body]));
    return id;
  }

  function drain(conn: Connection): void {
    if (conn.chunks.length > 0) conn.pending = Buffer.concat([conn.pending, ...conn.chunks.splice(0)]);
    conn.chunkBytes = 0;
    conn.need = 0;
    while (!hung && !conn.socket.destroyed && conn.pending.length >= 4) {
      const length = conn.pending.readInt32LE(0);
      if (length < 21 || length > MAX_MESSAGE_SIZE) return void conn.socket.destroy();
      if (conn.pending.length < length) return void (conn.need = length);
      const message = conn.pending.subarray(0, length);
      conn.pending = conn.pending.subarray(length);
      clearTimeout(conn.timer); // a new request on the socket ends any stream in progress
      setStreaming(conn, false);
      try {
        answer(conn, parseRequest(message));
      } catch {
        return void conn.socket.destroy(); // mongod also drops a connection that sends garbage
      }
    }
  }

  const server = createServer((socket) => {
    const conn: Connection = {
      id: ++lastConnectionId,
      socket,
      pending: Buffer.alloc(0),
      chunks: [],
      chunkBytes: 0,
      need: 0,
      streaming: false,
    };
    connections.add(conn);
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      // Joining every chunk onto what came before would copy a 30 MB insert hundreds of times over.
      conn.chunks.push(chunk);
      conn.chunkBytes += chunk.length;
      if (conn.pending.length + conn.chunkBytes >= conn.need) drain(conn);
    });
    socket.on('error', () => {}); // a client vanishing mid-write is normal here
    socket.on('close', () => {
      clearTimeout(conn.timer);
      connections.delete(conn);
      setStreaming(conn, false);
    });
  });

  await new Promise<void>((done, fail) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'the port is already in use' : error.message;
      fail(new Error(`cannot listen on ${host}:${port}: ${why}`, { cause: error }));
    });
    server.listen(port, host, () => done());
  });
  const bound = (server.address() as { port: number }).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  return {
    port: bound,
    url: `mongodb://${shownHost}:${bound}`,
    get connections() {
      return connections.size;
    },
    get streams() {
      return streams;
    },
    hang() {
      hung = true;
    },
    resume() {
      hung = false;
      for (const action of deferred.splice(0)) action();
      for (const conn of connections) drain(conn);
    },
    async close() {
      hung = false;
      deferred.length = 0;
      const stopped = new Promise<void>((done) => server.close(() => done()));
      // Resolve only once every socket has really closed, so `connections` reads 0 afterwards.
      const sockets = [...connections].map(({ socket, timer }) => {
        clearTimeout(timer);
        const closed = new Promise((done) => socket.once('close', done));
        socket.destroy();
        return closed;
      });
      await Promise.all([stopped, ...sockets]);
    },
  };
}

/** mongod's refusal of a reply over its object limit (16 MiB and 16 KiB of headroom), or undefined when it fits. */
function tooLarge(doc: Document): Document | undefined {
  const size = BSON.calculateObjectSize(doc);
  if (size <= MAX_BSON_OBJECT_SIZE + REPLY_HEADROOM) return undefined;
  const hex = size.toString(16).toUpperCase();
  const errmsg = `BSONObj size: ${size} (0x${hex}) is invalid. Size must be between 0 and 16793600(16MB)`;
  return { ok: 0, errmsg, code: 10334, codeName: 'BSONObjectTooLarge' };
}

function buildInfo(): Document {
  return {
    version: '8.0.0',
    gitVersion: 'mongo-standin (not MongoDB: it keeps data in memory only)',
    versionArray: [8, 0, 0, 0],
    modules: [],
    bits: 64,
    debug: false,
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    storageEngines: [],
    ok: 1,
  };
}

/** Parses one whole message (header included) into its command document; throws on anything malformed. */
function parseRequest(message: Buffer): Request {
  const requestId = message.readInt32LE(4);
  const opCode = message.readInt32LE(12);
  if (opCode === OP_QUERY) {
    const flags = message.readInt32LE(16);
    const nameEnd = message.indexOf(0, 20); // fullCollectionName, e.g. "admin.$cmd"
    if (nameEnd < 0) throw new Error('OP_QUERY without a collection name');
    const query = readDocument(message, nameEnd + 1 + 8); // skips numberToSkip and numberToReturn
    // A read preference wraps the command as {$query: {...}, $readPreference: ...}.
    const command = (query.$query as Document | undefined) ?? query;
    return { requestId, opCode, flags, command };
  }
  if (opCode !== OP_MSG) throw new Error(`unsupported opCode ${opCode}`);
  const flags = message.readUInt32LE(16);
  const end = message.length - ((flags & CHECKSUM_PRESENT) !== 0 ? 4 : 0); // the CRC-32C is not checked
  let command: Document | undefined;
  const sequences: Document = {};
  for (let at = 20; at < end;) {
    const kind = message.readUInt8(at++);
    if (kind === 0) {
      command = readDocument(message, at);
      at += message.readInt32LE(at);
    } else if (kind === 1) {
      const sectionEnd = at + message.readInt32LE(at);
      const idEnd = message.indexOf(0, at + 4);
      const identifier = message.toString('utf8', at + 4, idEnd);
      const documents: Document[] = [];
      for (let doc = idEnd + 1; doc < sectionEnd; doc += message.readInt32LE(doc))
        documents.push(readDocument(message, doc));
      sequences[identifier] = documents;
      at = sectionEnd;
    } else {
      throw new Error(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!command) throw new Error('OP_MSG without a body section');
  return { requestId, opCode, flags, command: { ...command, ...sequences } };
}

function readDocument(buffer: Buffer, at: number): Document {
  const size = buffer.readInt32LE(at);
  if (size < 5 || at + size > buffer.length) throw new Error('BSON document overruns the message');
  return BSON.deserialize(buffer.subarray(at, at + size), { promoteLongs: false });
}
