// The TCP proxy the faults cut links with: bytes pass both ways; cut resets open and new connections; heal lets
// new ones through again on the same port.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

const test = suite('tcp proxy');
let echo: Server;
const echoed = new Set<Socket>();
let proxy: TcpProxy;

test.before(async () => {
  echo = createServer((socket) => {
    echoed.add(socket);
    socket.on('error', () => {}).pipe(socket);
  });
  echo.listen(0, '127.0.0.1');
  await once(echo, 'listening');
  proxy = await startTcpProxy((echo.address() as { port: number }).port);
});

test.after(async () => {
  await proxy?.close();
  for (const socket of echoed) socket.destroy();
  await new Promise((resolve) => echo?.close(resolve));
});

/** Connects through the proxy; resolves once connected. */
async function open(): Promise<Socket> {
  const socket = connect(proxy.port, '127.0.0.1');
  await once(socket, 'connect');
  return socket;
}

/** Sends `text` and resolves with what comes back, or with the error code the socket ended with. */
function roundTrip(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    socket.on('data', (chunk) => {
      got += chunk.toString();
      if (got.length >= text.length) resolve(got);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(`error ${error.code}`));
    socket.on('close', () => resolve(got || 'closed'));
    socket.write(text);
  });
}

test('passes bytes both ways', async () => {
  const socket = await open();
  assert.is(await roundTrip(socket, 'hello'), 'hello');
  socket.destroy();
});

test('cut resets open connections and new ones; heal lets new ones through', async () => {
  const before = await open();
  assert.is(await roundTrip(before, 'one'), 'one');
  const ended = new Promise<string>((resolve) =>
    before.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error')),
  );
  proxy.cut();
  assert.is(await ended, 'ECONNRESET');
  assert.ok(proxy.isCut);

  const during = connect(proxy.port, '127.0.0.1');
  const [error] = (await once(during, 'error')) as [NodeJS.ErrnoException];
  assert.is(error.code, 'ECONNRESET');

  proxy.heal();
  const after = await open();
  assert.is(await roundTrip(after, 'two'), 'two');
  after.destroy();
});

test.run();
