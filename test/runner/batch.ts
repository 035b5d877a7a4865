// The runner's side of a unit batch (unit-batch.ts): one process that runs files in turn, each reported as if it
// had run alone. A file past its deadline, or one that takes the process down, ends the batch: the caller starts
// another for the files after it. A batch that does not exit once told there are no more files is a failure.
import { withDeadline } from '../../lib/with-deadline.ts';
import type { ResultRecord } from './results-channel.ts';
import { startTestProcess, type TestExit } from './test-process.ts';
import { verdict, type FileResult } from './verdict.ts';
import type { RunLimits } from './run-alone.ts';
import { BATCH, type TestBundles } from './bundles.ts';

export interface Batch {
  /** Runs one file in the batch; afterwards `ended` says whether the batch can take another. */
  run(file: string, limits: RunLimits): Promise<FileResult>;
  ended: boolean;
  /** No more files: resolves when the batch has exited, with a failed result when it would not or did badly. */
  close(graceMs: number): Promise<FileResult | undefined>;
}

interface Current {
  file: string;
  output: string;
  garbled?: string;
  done: (record: Extract<ResultRecord, { kind: 'done' }>) => void;
}

/** How long after its last file a batch has to exit (it reports itself stuck after 5 s). */
const EXIT_WITHIN_MS = 30_000;

/** A batch started from the run's bundles when there are some (its files must each have one), else with tsx. */
export function startBatch(bundles?: TestBundles): Batch {
  let current: Current | undefined;
  let loose = ''; // printed while no file ran: shown when the batch fails
  let stuck: Extract<ResultRecord, { kind: 'stuck' }> | undefined;
  const files: string[] = [];
  const test = startTestProcess(BATCH, {
    batch: true,
    bundles,
    onOutput: (text) => (current ? (current.output += text) : (loose += text)),
    onRecord: (record) => {
      if (record.kind === 'output') current ? (current.output += record.text) : (loose += record.text);
      else if (record.kind === 'done') current?.done(record);
      else if (record.kind === 'stuck') stuck = record;
      else if (record.kind === 'garbled' && current) current.garbled ??= record.line;
    },
  });
  const batch: Batch = {
    ended: false,
    async run(file, { deadlineMs, graceMs }) {
      const started = Date.now();
      files.push(file);
      const done = new Promise<Extract<ResultRecord, { kind: 'done' }>>((resolve) => {
        current = { file, output: '', done: resolve };
      });
      const running = current!;
      test.send(file);
      const seen = await withDeadline(Promise.race([done, test.ended]), deadlineMs, file).catch(async () => {
        await test.stop(graceMs);
        return { killedAfterMs: deadlineMs };
      });
      current = undefined;
      const outcome = outcomeOf(seen, running.garbled);
      batch.ended ||= !('kind' in seen);
      return { file, ...verdict(outcome), ms: Date.now() - started, output: running.output };
    },
    async close(graceMs) {
      if (batch.ended) return undefined;
      batch.ended = true;
      test.end();
      const exit = await withDeadline(test.ended, EXIT_WITHIN_MS, 'the batch to exit').catch(() => test.stop(graceMs));
      const reason = closeProblem(exit, stuck);
      if (!reason) return undefined;
      const file = `the batch of ${files.length} from ${files[0]}`;
      return { file, passed: 0, failed: 1, ms: 0, reason, output: loose, batch: true };
    },
  };
  return batch;
}

type Seen = Extract<ResultRecord, { kind: 'done' }> | TestExit | { killedAfterMs: number };

/** What the batch's answer (or its end, or the deadline) says about the file it was running. */
function outcomeOf(seen: Seen, garbled: string | undefined) {
  if ('killedAfterMs' in seen) return { killedAfterMs: seen.killedAfterMs, garbled };
  if ('kind' in seen) return { tally: seen, garbled };
  return { exit: seen, garbled };
}

function closeProblem(exit: TestExit, stuck: Extract<ResultRecord, { kind: 'stuck' }> | undefined) {
  if (stuck) {
    const after = stuck.suspects.length ? `; handles left after ${stuck.suspects.join('; ')}` : '';
    const open = stuck.open.join(', ');
    return `still running after its last file (open: ${open})${after}: unit files must leave nothing open`;
  }
  if (exit.code !== 0 || exit.signal) return `ended (${exit.signal ?? `exit code ${exit.code}`}) after its last file`;
  return undefined;
}
