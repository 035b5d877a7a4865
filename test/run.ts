// Runs test files under a deadline each, three at a time, printing a line per file as it ends, then the failures
// whole, the slowest files and the plain totals line CI reads. Unit files (the *.test.ts beside the code) share a few
// processes (test/runner/unit-batch.ts); every other file runs in a process of its own. Usage:
//   node --import tsx test/run.ts [unit|faults|containers] [--repeat N] [--batch] [filter | path/to/file.ts …]
// Plain runs take every *.test.ts, `unit` those outside test/, `faults` the fault suite (*.fault.ts), `containers`
// the tests against a Docker Engine (*.container.ts), which need `eval "$(bash scripts/container-engine.sh)"` first.
import { EventEmitter, once } from 'node:events';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectRoot as root } from '../tools/project-root.ts';
import { parseRunnerArgs, UsageError, type Mode, type RunnerArgs } from './runner/args.ts';
import { startBatch, type Batch } from './runner/batch.ts';
import { compileTests } from './runner/compile-tests.ts';
import { closingLines, failureLines, fileLine, repeatLines, slowestLines } from './runner/report.ts';
import { runAlone } from './runner/run-alone.ts';
import { lastTimes, longestFirst, saveSeed, saveTimes } from './runner/timings.ts';
import { stopAll } from './runner/test-process.ts';
import type { FileResult } from './runner/verdict.ts';

let args: RunnerArgs;
try {
  args = parseRunnerArgs(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.log(`test/run.ts: ${error.message}`);
  process.exit(2);
}
const { mode } = args;
const SUFFIXES: Record<Mode, string> = {
  all: '.test.ts',
  unit: '.test.ts',
  faults: '.fault.ts',
  containers: '.container.ts',
};
const DEFAULT_DEADLINE_MS = 240_000;
// Past its deadline a file gets SIGTERM, and this long to stop what it started before SIGKILL: a container test
// takes down its compose project or Swarm stack (their clean-ups wait up to a minute for the Engine).
const KILL_GRACE_MS = mode === 'containers' ? 90_000 : 5000;
// Plain test files run three at a time (each on free ports and temporary files of its own): most of a file's time is
// waiting on the processes it starts, so on 2 cores a third file fills the gaps (npm test on Node 20, quiet: 405 s
// two at a time, 352 s three). The fault suite measures time, so it runs one file at a time: its bounds hold with
// both cores kept busy by something else (three rounds beside two CPU burners), not with two fault files and the
// burners (30 November 2026: a kill seen 423 ms late, bound 400), nor with two fault files on a quiet machine (401 ms
// late): TEST_CONCURRENCY=2 runs two, longest first by the committed seed, for a hunt only. The container tests
// run two at a time (508 s one at a time in CI): they wait mostly on the Engine, and those that use its own swarm
// take turns (their `test-exclusive` line).
const serial = mode === 'faults' || mode === 'containers';
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY ?? (mode === 'faults' ? 1 : mode === 'containers' ? 2 : 3));
if (!Number.isInteger(CONCURRENCY) || CONCURRENCY < 1) {
  console.log(`TEST_CONCURRENCY=${process.env.TEST_CONCURRENCY} is not valid: expected a whole number, at least 1`);
  process.exit(2);
}
const VERBOSE = process.env.TEST_VERBOSE === '1';
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'smoke-artifacts']);
// Unit files that cannot share a process with others run alone, each for the reason given.
const ALONE = new Set<string>([]);

function findTests(dir: string, found: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (SKIP_DIRS.has(name) || name.startsWith('.')) continue;
    if (statSync(path).isDirectory()) findTests(path, found);
    else if (name.endsWith(SUFFIXES[mode])) found.push(relative(root, path));
  }
  return found;
}

const isUnit = (file: string) => !file.startsWith('test/');

/** The files the arguments select: a path to a file runs that file whatever its name; other words filter paths. */
function selected(): string[] {
  const all = findTests(root).filter((file) => mode !== 'unit' || isUnit(file));
  if (args.selectors.length === 0) return all;
  const paths = args.selectors.filter((s) => s.endsWith('.ts') && existsSync(join(root, s)));
  const words = args.selectors.filter((s) => !paths.includes(s));
  return [...new Set([...paths, ...all.filter((file) => words.some((word) => file.includes(word)))])];
}

const sources = new Map<string, string>();

/** A test file's text, read once: its `// test-…` lines say how it runs, and the plan asks for them repeatedly. */
function sourceOf(file: string): string {
  let source = sources.get(file);
  if (source === undefined) sources.set(file, (source = readFileSync(join(root, file), 'utf8')));
  return source;
}

/**
 * A file's deadline: TEST_FILE_TIMEOUT_MS when set, else the file's own `// test-deadline: N s` line (one that
 * must outlast the default, like the multi-node swarm test), else 4 minutes.
 */
function deadlineOf(file: string): number {
  if (process.env.TEST_FILE_TIMEOUT_MS !== undefined) return Number(process.env.TEST_FILE_TIMEOUT_MS);
  const own = /^\/\/ test-deadline: (\d+) s$/m.exec(sourceOf(file));
  return own ? Number(own[1]) * 1000 : DEFAULT_DEADLINE_MS;
}

/**
 * The resource a file must have to itself, from its `// test-exclusive: NAME` line: no two files naming the same one
 * run at the same time (the container tests that use the Engine's own swarm: one of them makes the Engine a swarm
 * when it is none, which two at once would race to do, and they deploy their stacks on the one node in turn).
 */
function exclusiveOf(file: string): string | undefined {
  return /^\/\/ test-exclusive: (\S+)$/m.exec(sourceOf(file))?.[1];
}

interface Item {
  file: string;
  run?: number;
  batched: boolean;
}

/** What to run, batched files first: under --repeat each file N times, each run in a process of its own. */
function plan(files: string[]): Item[] {
  if (args.repeat)
    return files.flatMap((file) =>
      Array.from({ length: args.repeat! }, (_, i) => ({ file, run: i + 1, batched: false })),
    );
  // A file that must run with tsx (compile-tests.ts) runs alone: a batch started from bundles runs bundles.
  const bundledIfAny = (file: string) => !bundles || bundles.of(file) !== undefined;
  const batched = (file: string) => (args.batch || (!serial && isUnit(file) && !ALONE.has(file))) && bundledIfAny(file);
  const items = files.map((file) => ({ file, batched: batched(file) }));
  // Side by side, the longest first (by their last times), so the run does not end on one long file alone.
  // A file never timed counts by its deadline: one that declares a long one (the multi-node swarm) goes first.
  const times = lastTimes();
  const length = (file: string) => times.get(file) ?? deadlineOf(file);
  const order = (group: Item[]) => (CONCURRENCY > 1 ? longestFirst(group, length, exclusiveOf) : group);
  return [...order(items.filter((i) => i.batched)), ...order(items.filter((i) => !i.batched))];
}

const files = selected();
if (files.length === 0) {
  console.log(`no test files match "${args.selectors.join(' ')}"`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const bundles = await compileTests(files);
const items = plan(files);
const total = items.length;
const results: FileResult[] = [];
const running = new Set<string>();
let interrupted: NodeJS.Signals | undefined;
/** The `test-exclusive` resources of the files running now, and the signal that one of them ended. */
const held = new Set<string>();
const fileEnds = new EventEmitter();

/** The next item whose resource is free (now held), waiting for one to be freed; undefined once none is left. */
async function take(): Promise<Item | undefined> {
  while (items.length > 0 && !interrupted) {
    const index = items.findIndex((item) => !held.has(exclusiveOf(item.file) ?? ''));
    if (index < 0) {
      await once(fileEnds, 'ended');
      continue;
    }
    const [item] = items.splice(index, 1);
    const exclusive = exclusiveOf(item!.file);
    if (exclusive) held.add(exclusive); // here, before another worker looks
    return item;
  }
  return undefined;
}

function finished(result: FileResult) {
  results.push(result);
  if (VERBOSE) process.stdout.write(`\n# ${result.file}\n${result.output}\n`);
  console.log(fileLine(result, results.filter((r) => !r.batch).length, total));
}

async function worker() {
  let batch: Batch | undefined;
  const closeBatch = async () => {
    const failed = await batch?.close(KILL_GRACE_MS);
    if (failed && !interrupted) finished(failed);
    batch = undefined;
  };
  for (let item = await take(); item && !interrupted; item = await take()) {
    const limits = { deadlineMs: deadlineOf(item.file), graceMs: KILL_GRACE_MS };
    if (!item.batched) await closeBatch();
    if (item.batched && (!batch || batch.ended)) batch = startBatch(bundles);
    running.add(item.file);
    const result = item.batched ? await batch!.run(item.file, limits) : await runAlone(item.file, limits, bundles);
    held.delete(exclusiveOf(item.file) ?? '');
    fileEnds.emit('ended');
    if (!interrupted) running.delete(item.file);
    if (!interrupted) finished({ ...result, ...(item.run ? { run: item.run } : {}) });
  }
  await closeBatch();
}

/** Ctrl-C or SIGTERM: the running files are stopped with their clean-ups; a second signal does not wait for them. */
function interrupt(signal: NodeJS.Signals) {
  if (interrupted) process.exit(signal === 'SIGINT' ? 130 : 143); // the test processes' groups are killed on exit
  interrupted = signal;
  console.log(
    `\n${signal}: stopping ${[...running].join(', ') || 'the run'} (clean-ups run; a second ${signal} kills)`,
  );
  void stopAll(KILL_GRACE_MS);
}
process.on('SIGINT', interrupt);
process.on('SIGTERM', interrupt);

const started = Date.now();
await Promise.all(Array.from({ length: Math.min(CONCURRENCY, total) }, worker));
for (const line of [
  ...failureLines(results),
  ...slowestLines(results),
  ...(args.repeat ? ['', ...repeatLines(results)] : []),
  ...closingLines(results, Date.now() - started, interrupted && { stopped: [...running], notStarted: items.length }),
]) {
  console.log(line);
}
saveTimes(results);
if (args.saveTimes && !interrupted) saveSeed(results);
if (interrupted) process.exit(interrupted === 'SIGINT' ? 130 : 143);
process.exitCode = results.some((r) => r.failed > 0) ? 1 : 0;
