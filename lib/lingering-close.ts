// A "lingering close" (nginx's lingering_close, RFC 9112 §9.6): after an answer sent before its request's body had
// arrived (413, 401, 429, 405…), the rest of the body is read and discarded, within bounds, before the connection
// closes, so the client gets to read the answer.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface LingerBounds {
  /** How long the rest of a body may take once the answer is written; then the connection is cut. */
  ms: number;
  /** How much of it is read (and dropped); past that the connection is cut. */
  bytes: number;
}

/**
 * 5 s is nginx's lingering_timeout: ample for the answer to reach a client and for the client to stop sending,
 * on a loaded machine too. 64 MiB is @hono/node-server's own drain bound: more than a client can have in flight
 * before it sees the answer (its socket buffers and ours, a few MiB each), and a body is dropped as it comes, so
 * the bytes cost time, never memory.
 */
export const LINGER: LingerBounds = { ms: 5000, bytes: 64 * 1024 * 1024 };

/**
 * Closing a socket with unread bytes makes the kernel send a reset, and the reset makes the client's kernel drop
 * the answer it has not read yet, and its next write fail with EPIPE: the client never sees the 413. Node does
 * exactly that with a `Connection: close` answer (it closes once the answer is written), and @hono/node-server's
 * own drain stalls behind the app's body reader (a web stream that pauses the request when its queue is full),
 * then closes after 500 ms. So serve.ts turns that drain off and this takes its place.
 */
export function lingerAfterEarlyAnswers(server: Server, bounds: LingerBounds = LINGER): void {
  server.on('request', function lingerIfUnread(req: IncomingMessage, res: ServerResponse) {
    // The probes' GETs and HEADs carry no body to wait for; they pay nothing here.
    if (req.method === 'GET' || req.method === 'HEAD') return;
    // Prepended: Node's own 'finish' listener is the one that closes a `Connection: close` answer's socket.
    res.prependOnceListener('finish', () => {
      if (!req.complete && !req.socket.destroyed) discardRest(req, req.socket, bounds);
    });
  });
}

function discardRest(req: IncomingMessage, socket: Socket, { ms, bytes }: LingerBounds) {
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, ms);
  socket.once('close', () => clearTimeout(timer));
  // The app's reader would stop at its full queue and stop the socket with it; nobody reads this body any more.
  req.removeAllListeners('data');
  let read = 0;
  req.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > bytes) cut();
  });
  req.once('end', () => {
    clearTimeout(timer);
    if (socket.writableEnded) cut(); // the answer said `Connection: close`: nothing more is read, nothing is lost
  });
  req.resume();
  // Where Node would close at once: end only the sending side (the client sees the answer whole, then a FIN),
  // and keep reading until the body has ended.
  socket.destroySoon = () => void socket.end();
}
