// Whether a thread still answers. A thread that dies is seen at once (its exit); one stuck in a loop never exits,
// and only silence shows it: the main thread sends it a probe every `everyMs`, one at a time, and a probe left
// unanswered past `silentMs` makes the thread silent until it answers again (device-thread.ts: the `devices`
// check is then `down`). Silent at most `silentMs + 2 × everyMs` after the hang (the probe it missed went out up to
// `everyMs` after it; the silence is judged every `everyMs`), 2.5 s by default, so that the check, its metric and
// the alert that reads it can all turn within 5 s.

export interface ThreadAnswersOptions {
  /** Sends a probe; false when no thread runs to take it (nothing is then awaited). */
  probe: () => boolean;
  onSilent: (silentMs: number) => void;
  onAnswered: () => void;
  everyMs?: number;
  silentMs?: number;
  now?: () => number;
}

export interface ThreadAnswers {
  /** The thread answered the probe. */
  answered(): void;
  /** Probes, or judges the probe waiting, now (the timer does, every `everyMs`). */
  tick(): void;
  /** A new thread: nothing is awaited from the old one. */
  reset(): void;
  stop(): void;
}

/** A healthy thread answers between two batches of messages, within milliseconds: 2 s of silence is not work. */
export const THREAD_SILENT_MS = 2000;

export function watchThreadAnswers(options: ThreadAnswersOptions): ThreadAnswers {
  const {
    probe,
    onSilent,
    onAnswered,
    everyMs = 250,
    silentMs = THREAD_SILENT_MS,
    now = () => performance.now(),
  } = options;
  let probedAt: number | undefined;
  let silent = false;
  function tick() {
    const at = now();
    if (probedAt === undefined) {
      if (probe()) probedAt = at;
    } else if (!silent && at - probedAt > silentMs) {
      silent = true;
      onSilent(Math.round(at - probedAt));
    }
  }
  const timer = setInterval(tick, everyMs).unref();
  return {
    answered() {
      probedAt = undefined;
      if (!silent) return;
      silent = false;
      onAnswered();
    },
    tick,
    reset() {
      probedAt = undefined;
      silent = false;
    },
    stop: () => clearInterval(timer),
  };
}
