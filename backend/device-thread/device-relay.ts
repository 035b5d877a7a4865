// The main thread's side of the device sockets (device-thread.ts): it holds each socket, numbers it, tells the device
// thread its events (a frame's bytes moved, not copied, where they can be) and does to it what the device thread
// says. Holding the bytes, it also bounds them: what a peer leaves unread of our sending, and what the device thread
// has not handled yet of its frames (read-budget.ts: past its share a socket is not read).
import type { WSContext, WSEvents } from 'hono/ws';
import type { WebSocket } from 'ws';
import type { Logger } from '../../lib/logger.ts';
import type { DeviceIdentity } from '../device-socket/device-auth.ts';
import type { SocketCommand, SocketEvent } from './device-thread-messages.ts';
import { createReadBudget, type ReadBudgetOptions } from './read-budget.ts';

// A peer that leaves this much of our sending unread is not reading: it is dropped.
const SEND_BUFFER_MAX = 64 * 1024;

/**
 * Bytes of frames read and not yet handled by the device thread: four frames of the largest size (64 KiB) a socket, so
 * that a device streaming across the thread hop is not held to one frame at a time; 16 MiB for all, so that a flood
 * of many sockets waits in the devices' send buffers and the kernel's, not in this process.
 */
export const READ_BUDGET: ReadBudgetOptions = { socketMax: 256 * 1024, totalMax: 16 * 1024 * 1024 };

export interface SocketRelay {
  /** The events of a new socket from `remoteAddress`, whose token speaks for `identity`. */
  events(remoteAddress: string, identity: DeviceIdentity): WSEvents;
  /** Does what the device thread said to the socket it names (gone already: nothing). */
  act(command: SocketCommand): void;
  /** Sockets open now. */
  size(): number;
  /** Closes every socket with `code` and forgets them (the device thread that knew them is gone). */
  closeAll(code: number, reason: string): void;
  /** Bytes read and not yet handled by the device thread; when the oldest such frame was read (performance.now()). */
  unhandled(): { bytes: number; oldestAt: number | undefined };
}

/** `tell` reaches the device thread, or returns false while there is none (the socket is then closed with `busy`). */
export function createSocketRelay(
  tell: (event: SocketEvent, transfer?: ArrayBuffer[]) => boolean,
  log: Logger,
  busy: { code: number; reason: string },
  budgetOptions: ReadBudgetOptions = READ_BUDGET,
): SocketRelay {
  const sockets = new Map<number, WebSocket>();
  const budget = createReadBudget(budgetOptions);
  // Paused by the device thread (8 frames waiting in its queue); read again only once neither side holds it.
  const pausedByThread = new Set<number>();
  let nextId = 0;
  const readAgain = (ids: number[]) => ids.forEach((id) => pausedByThread.has(id) || sockets.get(id)?.resume());

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
          // ws still gives the frames of the read it was in when paused (one read, at most 64 KiB): counted too.
          if (budget.read(id, bytes.byteLength, performance.now())) raw(ws).pause();
          tell({ kind: 'message', id, bytes, binary }, [bytes]);
        });
      },
      onClose(event) {
        if (!sockets.delete(id)) return;
        pausedByThread.delete(id);
        readAgain(budget.forget(id));
        tell({ kind: 'close', id, code: event.code, reason: event.reason });
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
      if (command.kind === 'handled') return readAgain(budget.credit(command.id, command.frames));
      if (command.kind === 'pause') pausedByThread.add(command.id);
      if (command.kind === 'resume') pausedByThread.delete(command.id);
      if (command.kind === 'resume' && budget.isPaused(command.id)) return;
      ws[command.kind]();
    },
    size: () => sockets.size,
    closeAll(code, reason) {
      for (const ws of sockets.values()) ws.close(code, reason);
      sockets.clear();
      pausedByThread.clear();
      budget.clear();
    },
    unhandled: () => ({ bytes: budget.total(), oldestAt: budget.oldestAt() }),
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
