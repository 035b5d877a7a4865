// A stand-in for `mongosh` in the MongoDB stand-in image: whatever the arguments (the health check's
// `--quiet --eval "quit(db.adminCommand('ping').ok === 1 ? 0 : 1)"`), it sends one real `ping` over the wire
// protocol to localhost:27017 and exits 0 when the answer says ok: 1, else 1. Bounded by a 5 s deadline.
import { connect } from 'node:net';
import { BSON } from 'bson';

const OP_MSG = 2013;
const DEADLINE_MS = 5000;

function fail(reason: string): never {
  process.stderr.write(`mongosh stand-in: ${reason}\n`);
  process.exit(1);
}

setTimeout(() => fail(`no answer to ping within ${DEADLINE_MS} ms`), DEADLINE_MS).unref();

const body = BSON.serialize({ ping: 1, $db: 'admin' });
const header = Buffer.alloc(21);
header.writeInt32LE(21 + body.length, 0); // messageLength
header.writeInt32LE(1, 4); // requestID
header.writeInt32LE(0, 8); // responseTo
header.writeInt32LE(OP_MSG, 12);
header.writeUInt32LE(0, 16); // flagBits
header.writeUInt8(0, 20); // section kind 0: the command document

const socket = connect({ host: '127.0.0.1', port: 27017 });
let received = Buffer.alloc(0);
socket.on('connect', () => socket.write(Buffer.concat([header, body])));
socket.on('data', (chunk: Buffer) => {
  received = Buffer.concat([received, chunk]);
  if (received.length < 4 || received.length < received.readInt32LE(0)) return;
  if (received.readInt32LE(12) !== OP_MSG || received.readUInt8(20) !== 0) fail('the answer is not an OP_MSG reply');
  const reply = BSON.deserialize(received.subarray(21, received.readInt32LE(0)));
  socket.destroy();
  if (reply.ok === 1) process.exit(0);
  fail(`ping answered ok: ${String(reply.ok)}`);
});
socket.on('error', (error) => fail(error.message));
socket.on('end', () => fail('the connection closed before an answer'));
