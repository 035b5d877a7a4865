// The main thread's side of the device sockets (device-thread.ts): it holds each socket, numbers it, tells the device
// thread its events (a frame's bytes moved, not copied, where they can be) and does to it what the device thread
// says. Holding the bytes, it also bounds what a peer leaves unread.
import type { WSContext, WSEvents } from 'hono/ws';
import type { WebSocket } from 'ws';
import type { Logger } from '../../lib/logger.ts';
import type { DeviceIdentity } from '../device-socket/device-auth.ts';
import type { SocketCommand, SocketEvent } from './device-thread-messages.ts';

// A peer that leaves this much of our sending unread is not reading: it is dropped.
const SEND_BUFFER_MAX = 64 * 1024;

export interface SocketRelay {
  /** The events of a new socket from `remoteAddress`, whose token speaks for `identity`. */
  events(remoteAddress: string, identity: DeviceIdentity): WSEvents;
  /** Does what the device thread said to the socket it names (gone already: nothing). */
  act(command: SocketCommand): void;
  /** Sockets open now. */
  size(): number;
  /** Closes every socket with `code` and forgets them (the device thread that knew them is gone). */
  closeAll(code: number, reason: string): void;
}

/** `tell` reaches the device thread, or returns false while there is none (the socket is then closed with `busy`). */
export function createSocketRelay(
  tell: (event: SocketEvent, transfer?: ArrayBuffer[]) => boolean,
  log: Logger,
  busy: { code: number; reason: string },
): SocketRelay {
  const sockets = new Map<number, WebSocket>();
  let nextId = 0;

  function events(remoteAddress: string, identity: DeviceIdentity): WSEvents {
    const id = nextId++;
    return {
      onOpen(_event, ws) {
        if (!tell({ kind: 'open', id, remoteAddress, identity })) return ws.close(busy.code, busy.reason);
        sockets.set(id, raw(ws));
        raw(ws).on('ping', () => tell({ kind: 'ping', id }));
        // No onMessage: Hono then decodes nothing. Decoding the frame is the device thread's work.
        raw(ws).on('message', (data: Buffer, binary: boolean) => {
          const bytes = ownBytes(data);
          tell({ kind: 'message', id, bytes, binary }, [bytes]);
        });
      },
      onClose(event) {
        if (sockets.delete(id)) tell({ kind: 'close', id, code: event.code, reason: event.reason });
      },
      onError: (event) => void tell({ kind: 'error', id, message: String((event as ErrorEvent).error?.message) }),
    };
  }

  return {
    events,
    act(command) {
      const ws = sockets.get(command.id);
      if (!ws) return;
      if (command.kind === 'send') return sendBounded(ws, command.text, log);
      if (command.kind === 'close') return ws.close(command.code, command.reason);
      ws[command.kind]();
    },
    size: () => sockets.size,
    closeAll(code, reason) {
      for (const ws of sockets.values()) ws.close(code, reason);
      sockets.clear();
    },
  };
}

const raw = (ws: WSContext) => ws.raw as WebSocket;

/**
 * The frame's bytes in an ArrayBuffer of their own, to move to the device thread. ws gives a frame that spanned
 * several reads in a buffer made for it: moved as it is, a burst of frames costs no copy here (nor the garbage
 * collections of the copies). A frame read within one chunk shares that chunk: copied.
 */
export function ownBytes(data: Buffer): ArrayBuffer {
  if (data.byteOffset === 0 && data.byteLength === data.buffer.byteLength) return data.buffer as ArrayBuffer;
  const bytes = new Uint8Array(data.byteLength);
  bytes.set(data);
  return bytes.buffer;
}

/** Sends `text`; a peer that leaves more than SEND_BUFFER_MAX of our sending unread is dropped. */
function sendBounded(ws: WebSocket, text: string, log: Logger) {
  ws.send(text);
  const buffered = ws.bufferedAmount;
  if (buffered <= SEND_BUFFER_MAX) return;
  log.warn({ buffered }, `dropped a device socket that stopped reading (${buffered} bytes unsent)`);
  ws.terminate();
}
