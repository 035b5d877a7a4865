// Records when a dependency went down or came back, and judges a client's readiness answers against it.
import type { Sample } from './hammer.ts';

export interface Change {
  /** performance.now() of the event (the signal sent, or the restarted process seen listening). */
  at: number;
  up: boolean;
  what: string;
  /** How long readiness may keep showing the previous state after this change. */
  boundMs: number;
  /**
   * How long before `at` the new state may already show: a pty is gone, or a restarted process listens, a
   * moment before the awaited step that caused it returns (see `during`).
   */
  earlyMs: number;
}

export interface Verdict {
  /** One line per answer that missed, naming the change, the bound and the measured lag. */
  violations: string[];
  /** Per change, how long the previous state was still seen after it (0 when the next answer already matched). */
  lags: Array<{ what: string; ms: number; boundMs: number }>;
  answers: number;
}

export function createTimeline(initialUp: boolean) {
  const changes: Change[] = [{ at: performance.now(), up: initialUp, what: 'start', boundMs: 0, earlyMs: 0 }];
  const mark = (up: boolean, what: string, boundMs: number, earlyMs = 0) => {
    changes.push({ at: performance.now(), up, what, boundMs, earlyMs });
  };
  return {
    changes,
    /** A change that happens at this very moment: call it in the same tick as the signal that causes it. */
    mark,
    /**
     * A change that `act` brings about at some moment while it runs (a pty removed, a process restarted and
     * seen listening): the service may show it from the moment `act` begins, and must within `boundMs` of its
     * end. Marking only after an awaited `act` would judge the answers that already show the change against
     * the state before it.
     */
    async during<T>(up: boolean, what: string, boundMs: number, act: () => Promise<T>): Promise<T> {
      const began = performance.now();
      const result = await act();
      mark(up, what, boundMs, performance.now() - began);
      return result;
    },
  };
}

/**
 * Every answer must be 200 (ready) or 503 (not ready) and match the dependency's state, except within a
 * change's bound. The lag counts from the change to when the stale request was *sent*: a stale answer to a
 * request sent after the bound proves a miss, whatever the machine's load did to the reply's latency.
 */
export function judge(samples: Sample[], changes: Change[], margin: number): Verdict {
  const violations: string[] = [];
  const lag = changes.map(() => 0);
  const sorted = [...samples].sort((a, b) => a.sent - b.sent);
  let i = 0;
  for (const sample of sorted) {
    if (sample.sent < changes[0]!.at) continue;
    while (i + 1 < changes.length && changes[i + 1]!.at <= sample.sent) i++;
    if (sample.status !== 200 && sample.status !== 503) {
      const answer = sample.error ?? `status ${sample.status}`;
      violations.push(`${sample.path} sent ${ms(sample.sent - changes[i]!.at)} after "${changes[i]!.what}": ${answer}`);
      continue;
    }
    const up = sample.status === 200;
    if (up === changes[i]!.up) continue;
    // An answer may already show a change that happened while it was in flight.
    if (changes.some((c, j) => j > i && c.up === up && c.at - c.earlyMs <= sample.received)) continue;
    const late = sample.sent - changes[i]!.at;
    lag[i] = Math.max(lag[i]!, late);
    if (late > changes[i]!.boundMs * margin) {
      violations.push(
        `"${changes[i]!.what}" (#${i}): still ${up ? 200 : 503} ${ms(late)} after it (bound ${changes[i]!.boundMs} ms)`,
      );
    }
  }
  return {
    violations,
    lags: changes.slice(1).map((c, j) => ({ what: c.what, ms: lag[j + 1]!, boundMs: c.boundMs })),
    answers: sorted.length,
  };
}

const ms = (n: number) => `${Math.round(n)} ms`;
