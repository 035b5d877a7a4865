// Sends what the frame pacer (frame-pacer.ts) hands out on the backend link's current socket, and schedules the
// next try: when the pace allows, when new readings came in together, or when an ack made room.
import type { BackendTerms, FramePacer } from './frame-pacer.ts';

/** What the sender needs of a socket. */
export interface SendSocket {
  readonly readyState: number;
  send(text: string): void;
}

/** WebSocket's OPEN. */
const OPEN = 1;

export interface FrameSender {
  /** A new socket, held to its backend's `terms` when given: its hello, then whatever is waiting. */
  open(terms?: BackendTerms): void;
  /** The spool has a new reading: sends it if the socket, the pace and the in-flight bound allow (else later). */
  deliver(): void;
  /** An ack forgot `forgotten` readings: room in flight for more, and the backend's backlog figure is stale. */
  acked(forgotten: number): void;
  /** The socket is gone, or the link closes: nothing more is scheduled. */
  stop(): void;
}

export function createFrameSender(pacer: FramePacer, socket: () => SendSocket | undefined): FrameSender {
  let pumpTimer: NodeJS.Timeout | undefined;
  let pumpSoon = false;
  const open = () => {
    const ws = socket();
    return ws && ws.readyState === OPEN ? ws : undefined;
  };

  // Many readings to a frame, one frame per token: a backlog drains as fast as the backend acknowledges. With all
  // sent, or the in-flight bound reached, the next reading or ack pumps again.
  function pump() {
    clearTimeout(pumpTimer);
    pumpTimer = undefined;
    const ws = open();
    if (!ws) return;
    for (let paced = pacer.next(); paced; paced = pacer.next()) {
      if ('waitMs' in paced) {
        pumpTimer = setTimeout(pump, paced.waitMs);
        return;
      }
      ws.send(paced.text);
    }
  }

  return {
    open(terms) {
      open()?.send(pacer.open(terms));
      pump();
    },
    deliver() {
      // Lines that arrive together (one serial chunk) go out in one frame: pump once they are all in the spool.
      if (pumpTimer || pumpSoon) return;
      pumpSoon = true;
      setImmediate(() => {
        pumpSoon = false;
        pump();
      });
    },
    acked(forgotten) {
      if (forgotten > 0 && !pumpTimer) pump();
      // After an ack that sent no frame, a hello tells the backend the backlog (its last figure counted the acked).
      const ws = open();
      if (!ws || pumpTimer) return;
      const hello = pacer.backlogHello();
      if (hello) ws.send(hello);
    },
    stop() {
      clearTimeout(pumpTimer);
      pumpTimer = undefined;
    },
  };
}
