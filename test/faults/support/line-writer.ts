// Writes numbered lines into the far end of a serial pty, as the sensor would, and remembers every line written.
import type { PtyPair } from '../../support/pty-pair.ts';

export interface LineWriter {
  written: string[];
  /** Writes `count` lines now. */
  burst(count: number): void;
  /** Writes one line every `everyMs` until stop(). */
  start(everyMs: number): void;
  stop(): void;
}

export function createLineWriter(pty: () => PtyPair, prefix: string): LineWriter {
  const written: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const burst = (count: number) => {
    const lines = Array.from({ length: count }, (_, i) => `${prefix}-${written.length + i + 1}`);
    pty().write(lines.map((line) => `${line}\n`).join(''));
    written.push(...lines);
  };
  return {
    written,
    burst,
    start(everyMs) {
      timer = setInterval(() => burst(1), everyMs);
    },
    stop() {
      clearInterval(timer);
    },
  };
}
