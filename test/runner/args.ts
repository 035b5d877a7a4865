// The runner's command line: `[unit|faults|containers] [--repeat N] [--batch] [filter | path/to/file.ts …]`.
// A bad argument is one line and exit code 2.
import { parseArgs } from 'node:util';

export type Mode = 'all' | 'unit' | 'faults' | 'containers';

export interface RunnerArgs {
  mode: Mode;
  /** Run each selected file this many times, each in a process of its own (a flake hunt). */
  repeat?: number;
  /** Run the selected files in shared processes, as unit files are (how the runner's own tests try a batch). */
  batch: boolean;
  /** Write this run's file times to test/file-times.json, the order a fresh clone's first run starts from. */
  saveTimes: boolean;
  /** Paths of files to run, or parts of paths; none selects every file of the mode. */
  selectors: string[];
}

export class UsageError extends Error {
  override name = 'UsageError';
}

export const USAGE =
  'usage: test/run.ts [unit|faults|containers] [--repeat N] [--batch] [--save-times] [filter | path/to/file.ts …]';
const MODES = new Set<string>(['unit', 'faults', 'containers']);

export function parseRunnerArgs(argv: string[]): RunnerArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        repeat: { type: 'string' },
        batch: { type: 'boolean', default: false },
        'save-times': { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    // parseArgs's own message goes on to explain `--`; its first sentence is what was wrong.
    throw new UsageError(`${(error as Error).message.split('. ')[0]}; ${USAGE}`);
  }
  const positionals = [...parsed.positionals];
  const mode = (MODES.has(positionals[0] ?? '') ? positionals.shift() : 'all') as Mode;
  const { repeat, batch, 'save-times': saveTimes } = parsed.values;
  const common = { mode, batch: batch ?? false, saveTimes: saveTimes ?? false, selectors: positionals };
  if (repeat === undefined) return common;
  const times = Number(repeat);
  if (!/^\d+$/.test(repeat) || times < 1) {
    throw new UsageError(`--repeat expects a whole number of runs, at least 1, not "${repeat}"`);
  }
  return { ...common, repeat: times };
}
