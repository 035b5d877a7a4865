// Answers a request whose Upgrade header names anything but WebSocket (h2c, …) as the plain HTTP/1.1 request it is.
import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';

type UpgradeListener = (req: IncomingMessage, socket: Socket, head: Buffer) => void;

/**
 * Once a server has an 'upgrade' listener, Node hands it every request with an Upgrade header, and
 * @hono/node-server's listener returns without a word when the header is not `websocket`: `curl --http2` then
 * waits forever and the socket, out of the HTTP server's hands, holds up shutdown. RFC 9110 §7.8 lets a server
 * ignore an Upgrade it does not speak, so the request goes to the app like any other and the connection then
 * closes. (Node ≥ 24.9's `shouldUpgradeCallback` does the same; Node 20 has no such option.)
 */
export function answerNonWebSocketUpgrades(server: Server): void {
  const webSocketListeners = server.listeners('upgrade') as UpgradeListener[];
  server.removeAllListeners('upgrade');
  // One listener again: @hono/node-server refuses an unwanted WebSocket upgrade (401, 503…) only when it is alone.
  server.on('upgrade', function routeUpgrade(req: IncomingMessage, socket: Socket, head: Buffer) {
    if (req.headers.upgrade?.toLowerCase() === 'websocket') {
      for (const listener of webSocketListeners) listener.call(server, req, socket, head);
    } else answerPlainly(server, req, socket);
  });
}

function answerPlainly(server: Server, req: IncomingMessage, socket: Socket) {
  // Node took its own listeners off the socket at the hand-off; without this an error would be thrown.
  socket.on('error', () => socket.destroy());
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false; // `Connection: close`: the rest of the stream is no longer parsed as HTTP
  res.assignSocket(socket);
  res.on('finish', () => {
    res.detachSocket(socket);
    socket.destroySoon();
  });
  // Node has already ended the request's body stream (the bytes after the head went to the upgrade), so a
  // request with a body cannot reach the app intact.
  if (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0) {
    const text = `Upgrade to ${req.headers.upgrade} is not supported: send the request without the Upgrade header.\n`;
    res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  server.emit('request', req, res);
}
