// Spreads bursts of heavy work over the event loop's turns: each piece (a large write to serialize, say) waits for a
// turn with room left, so a probe read between two pieces is answered after one of them, not after the whole burst.
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface TurnBudget {
  /** Resolves when the caller may start one piece of work: in this turn if it has room, else in a later one. */
  turn(): Promise<void>;
}

/** The pure part: whether another piece may start in a turn that already started `started` of them. */
export function hasRoom(started: number, perTurn: number): boolean {
  return started < perTurn;
}

export function createTurnBudget({ perTurn = 1 } = {}): TurnBudget {
  let started = 0;
  let turnEnding = false;
  const waiting: Array<() => void> = [];

  /**
   * Frees the room once the loop has been round: two check phases on, so that a poll phase (where probes and
   * socket data are read) always comes between two turns' pieces, whichever phase the first piece started in.
   */
  function endTurnLater() {
    if (turnEnding) return;
    turnEnding = true;
    void nextTurn()
      .then(() => nextTurn())
      .then(function turnEnded() {
        turnEnding = false;
        started = 0;
        admit();
      });
  }

  function admit() {
    while (waiting.length > 0 && hasRoom(started, perTurn)) {
      started += 1;
      waiting.shift()!();
    }
    if (started > 0) endTurnLater();
  }

  return {
    turn() {
      const admitted = new Promise<void>((resolve) => waiting.push(resolve));
      admit();
      return admitted;
    },
  };
}
