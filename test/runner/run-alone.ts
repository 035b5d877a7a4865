// Runs one test file in a process of its own, under its deadline: at the deadline SIGTERM (its clean-ups run), then
// SIGKILL of its group after the grace. Its counts come from the results channel; its output is kept whole.
import { withDeadline } from '../../lib/with-deadline.ts';
import type { FileTally } from './results-channel.ts';
import { startTestProcess } from './test-process.ts';
import type { TestBundles } from './bundles.ts';
import { verdict, type FileResult } from './verdict.ts';

export interface RunLimits {
  deadlineMs: number;
  graceMs: number;
}

export async function runAlone(
  file: string,
  { deadlineMs, graceMs }: RunLimits,
  bundles?: TestBundles,
): Promise<FileResult> {
  const started = Date.now();
  let output = '';
  let tally: FileTally | undefined;
  let garbled: string | undefined;
  const test = startTestProcess(file, {
    bundles,
    onOutput: (text) => (output += text),
    onRecord: (record) => {
      if (record.kind === 'done') tally = record;
      else if (record.kind === 'garbled') garbled ??= record.line;
    },
  });
  let killedAfterMs: number | undefined;
  const exit = await withDeadline(test.ended, deadlineMs, file).catch(() => {
    killedAfterMs = deadlineMs;
    return test.stop(graceMs);
  });
  const note = exit.leftover && killedAfterMs === undefined ? 'left processes running: killed' : undefined;
  const judged = verdict({ tally, exit, killedAfterMs, garbled });
  return { file, ...judged, ms: Date.now() - started, output, ...(note ? { note } : {}) };
}
