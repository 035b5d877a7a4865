// The runner's typed channel: what a test process tells test/run.ts, one JSON record per line on file descriptor 3
// (a pipe the runner opens), so counts never come from the lines uvu prints for people. Written and read here.
import { fstatSync, writeSync } from 'node:fs';

/** One uvu suite as it ended: tests passed, skipped and in all (the `only` ones when a suite has some). */
export interface SuiteCount {
  passed: number;
  skipped: number;
  total: number;
  /** It ended with tests unrun and no failure reported: uvu drops the error of a suite's before hook. */
  hookThrew?: true;
}

/** Where a test file's run got to: the suites uvu ran, out of those queued, and what stopped it, if anything. */
export interface FileTally {
  suites: SuiteCount[];
  queued: number;
  /** An error thrown while loading the file or running uvu (a batch catches it; alone, the process crashes). */
  error?: string;
}

export type ResultRecord =
  | { kind: 'start'; file: string }
  | { kind: 'output'; text: string }
  | ({ kind: 'done'; file: string; left?: string[] } & FileTally)
  | { kind: 'stuck'; open: string[]; suspects: string[] }
  /** A line on the channel that is not a record: counted as a failure of whoever wrote it. */
  | { kind: 'garbled'; line: string };

/** The channel's descriptor in a test process; the variable names it only for the runner's own children. */
export const RESULTS_FD = 3;
export const RESULTS_ENV = 'TEST_RESULTS_FD';

/**
 * Takes the channel for this process: true when the runner opened it. The variable is removed at once, so a
 * node process the test file starts (with a copy of its environment) never writes to an fd 3 of its own.
 */
export function takeChannel(): boolean {
  const ours = process.env[RESULTS_ENV] === String(RESULTS_FD);
  delete process.env[RESULTS_ENV];
  if (!ours) return false;
  const stat = fstatSync(RESULTS_FD);
  return stat.isFIFO() || stat.isSocket();
}

/** Writes one record, whole, before returning (it may be the last thing a process does). */
export function writeRecord(record: ResultRecord): void {
  const bytes = Buffer.from(`${JSON.stringify(record)}\n`);
  for (let sent = 0; sent < bytes.length;) {
    try {
      sent += writeSync(RESULTS_FD, bytes, sent);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    }
  }
}

/** A reader for the channel's bytes: calls `onRecord` for each whole line, in order. */
export function recordReader(onRecord: (record: ResultRecord) => void): (chunk: Buffer) => void {
  let partial = '';
  return (chunk) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line) onRecord(parseRecord(line));
  };
}

const KINDS = new Set(['start', 'output', 'done', 'stuck']);

function parseRecord(line: string): ResultRecord {
  try {
    const value = JSON.parse(line) as ResultRecord;
    if (typeof value === 'object' && value !== null && KINDS.has(value.kind)) return value;
  } catch {
    /* not JSON: garbled below */
  }
  return { kind: 'garbled', line: line.slice(0, 200) };
}
