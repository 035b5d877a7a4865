// A device socket client on a bare TCP socket: it upgrades, then writes frames and reads nothing at all,
// which no WebSocket library lets a client do (they read to answer pings and closes).
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { DEVICE_SOCKET_PATH } from '../../lib/device-protocol.ts';
import { withDeadline } from './deadline.ts';

export const OPCODE = { text: 0x1, binary: 0x2, ping: 0x9 } as const;

/** Upgrades with `Authorization: Bearer <token>`; resolves with the socket paused right after the 101 response. */
export function rawUpgrade(port: number, token: string): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {}); // the backend dropping us is what some tests wait for
  socket.write(
    [
      `GET ${DEVICE_SOCKET_PATH} HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      `Authorization: Bearer ${token}`,
      '',
      '',
    ].join('\r\n'),
  );
  return withDeadline(
    new Promise<Socket>((resolve, reject) => {
      let head = '';
      const onData = (chunk: Buffer) => {
        head += chunk.toString('latin1');
        if (!head.includes('\r\n\r\n')) return;
        socket.off('data', onData);
        socket.pause();
        if (head.startsWith('HTTP/1.1 101')) resolve(socket);
        else reject(new Error(`upgrade refused: ${head.split('\r\n')[0]}`));
      };
      socket.on('data', onData);
      socket.once('close', () => reject(new Error('closed during the upgrade')));
    }),
    5000,
    'raw device socket upgrade',
  );
}

/** One masked client frame (final, no extensions). */
export function frame(opcode: number, payload: Buffer | string): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const mask = randomBytes(4);
  const length =
    data.length < 126
      ? Buffer.from([0x80 | data.length])
      : data.length < 65536
        ? Buffer.from([0x80 | 126, data.length >> 8, data.length & 0xff])
        : lengthOf64(data.length);
  const masked = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i++) masked[i] = data[i]! ^ mask[i & 3]!;
  return Buffer.concat([Buffer.from([0x80 | opcode]), length, mask, masked]);
}

function lengthOf64(n: number): Buffer {
  const b = Buffer.alloc(9);
  b[0] = 0x80 | 127;
  b.writeBigUInt64BE(BigInt(n), 1);
  return b;
}
