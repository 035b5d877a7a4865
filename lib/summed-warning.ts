// A warning for something that can happen thousands of times a second: the first occurrence is logged at
// once, later ones are counted and logged as one summed line per interval, so a flood is not a log flood.

/** What it needs of a logger: a pino `Logger` fits, and so does a plain-line adapter (the frontend's). */
export interface WarnLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface SummedWarning {
  /** Counts `count` occurrences (one by default); `fields` of the latest go into the next line. */
  note(fields?: Record<string, unknown>, count?: number): void;
  /** Logs what is counted but not yet reported, and stops the timer (on shutdown). */
  flush(): void;
}

/** Lines of one summed warning are at least this far apart. */
export const SUMMED_WARNING_INTERVAL_MS = 5000;

/** `message(count)` words the line, e.g. (n) => `ignored ${n} malformed device messages`. */
export function createSummedWarning(
  log: WarnLog,
  message: (count: number) => string,
  { intervalMs = SUMMED_WARNING_INTERVAL_MS } = {},
): SummedWarning {
  let unreported = 0;
  let total = 0;
  let latest: Record<string, unknown> = {};
  let timer: NodeJS.Timeout | undefined;

  function report() {
    if (unreported === 0) return;
    log.warn({ ...latest, count: unreported, total }, message(unreported));
    unreported = 0;
  }
  function tick() {
    timer = undefined;
    if (unreported === 0) return;
    report();
    timer = setTimeout(tick, intervalMs).unref();
  }

  return {
    note(fields = {}, count = 1) {
      total += count;
      unreported += count;
      latest = fields;
      if (timer) return;
      report();
      timer = setTimeout(tick, intervalMs).unref();
    },
    flush() {
      clearTimeout(timer);
      timer = undefined;
      report();
    },
  };
}
