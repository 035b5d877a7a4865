// What a test file's run comes to: tests passed and failed, and for a failure one line of why. Pure: the runner
// gathers what it saw (the file's tally from the results channel, how its process ended) and asks here.
import type { FileTally } from './results-channel.ts';

/** One file's run, as the runner reports it. */
export interface FileResult {
  /** The file, and which run of it under --repeat. */
  file: string;
  run?: number;
  passed: number;
  failed: number;
  ms: number;
  /** Why it failed, in one line; absent when it passed. */
  reason?: string;
  /** Something worth a word that did not fail it (processes left behind, killed by the runner). */
  note?: string;
  /** Everything it printed. */
  output: string;
  /** Not a file but a batch that failed after its files had run (not counted in the progress). */
  batch?: true;
}

export interface Seen {
  /** The file's counts; absent when it never reported any (killed, crashed before exiting normally). */
  tally?: FileTally;
  /** How its own process ended; absent for a file of a batch that is still running. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  /** It was stopped at its deadline, this many ms after it began. */
  killedAfterMs?: number;
  /** A line it wrote to the results channel that is not a record. */
  garbled?: string;
}

export type Verdict = Pick<FileResult, 'passed' | 'failed' | 'reason'>;

export function verdict({ tally, exit, killedAfterMs, garbled }: Seen): Verdict {
  const passed = (tally?.suites ?? []).reduce((n, suite) => n + suite.passed, 0);
  const failed = (tally?.suites ?? []).reduce((n, suite) => n + suite.total - suite.passed, 0);
  const total = passed + failed;
  const fail = (reason: string) => ({ passed, failed: Math.max(1, failed), reason });
  if (killedAfterMs !== undefined) return fail(`killed after ${killedAfterMs} ms`);
  if (garbled !== undefined) return fail(`wrote a line that is not a record to the results channel: ${garbled}`);
  const clean = exit !== undefined && exit.code === 0 && !exit.signal;
  if (!tally || (tally.queued === 0 && !clean && !tally.error))
    return fail(`ended (${ended(exit)}) without uvu results`);
  if (tally.error) return fail(`threw: ${tally.error.split('\n')[0]}`);
  if (tally.suites.length < tally.queued) {
    return fail(
      `ended (${ended(exit)}) before its tests finished: ${tally.suites.length} of ${tally.queued} suites ran`,
    );
  }
  if (tally.queued === 0) return fail('ran no uvu suite (no test.run()?)');
  const unrun = tally.suites.find((suite) => suite.hookThrew);
  if (unrun) {
    const never = `${unrun.total - unrun.passed} of its ${unrun.total} tests never ran`;
    return fail(`a suite's before hook threw, so ${never}`);
  }
  if (failed > 0) return { passed, failed, reason: `${failed} of ${total} tests failed` };
  if (exit && (exit.code !== 0 || exit.signal)) return fail(`${ended(exit)} after all tests passed`);
  return { passed, failed: 0 };
}

function ended(exit: Seen['exit']): string {
  if (!exit) return 'its batch still running';
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}
