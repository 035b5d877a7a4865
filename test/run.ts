// Runs every test file in its own process with a deadline, then prints the plain totals line CI reads.
// Usage: node --import tsx test/run.ts [faults|containers] [filter | path/to/one-file.ts]
// Plain runs take *.test.ts; `faults` takes the fault suite (*.fault.ts), `containers` the tests against a
// Docker Engine (*.container.ts, test/containers/), which need `eval "$(bash scripts/container-engine.sh)"` first.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { withDeadline } from '../lib/with-deadline.ts';
import { startProcess } from '../tools/child-process.ts';
import { projectRoot as root } from '../tools/project-root.ts';

const args = process.argv.slice(2);
const SUFFIXES: Record<string, string> = { faults: '.fault.ts', containers: '.container.ts' };
const mode = args[0] !== undefined && args[0] in SUFFIXES ? args[0] : undefined;
const suffix = mode ? SUFFIXES[mode]! : '.test.ts';
const filter = (mode ? args[1] : args[0]) ?? '';
const DEFAULT_DEADLINE_MS = 240_000;
// Past its deadline a file gets SIGTERM, and this long to stop what it started before SIGKILL: a container test
// takes down its compose project or Swarm stack (their clean-ups wait up to a minute for the Engine).
const KILL_GRACE_MS = mode === 'containers' ? 90_000 : 5000;
// Plain test files run two at a time (each is its own process on free ports and temporary files); the fault suite
// measures time and the container tests share one Engine, so those run one at a time.
const CONCURRENCY = mode ? 1 : Number(process.env.TEST_CONCURRENCY ?? 2);
if (!Number.isInteger(CONCURRENCY) || CONCURRENCY < 1) {
  console.log(`TEST_CONCURRENCY=${process.env.TEST_CONCURRENCY} is not valid: expected a whole number, at least 1`);
  process.exit(2);
}
const EXIT_ON_SIGTERM = './test/support/exit-on-sigterm.ts';
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'smoke-artifacts']);

function findTests(dir: string, found: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (SKIP_DIRS.has(name) || name.startsWith('.')) continue;
    if (statSync(path).isDirectory()) findTests(path, found);
    else if (name.endsWith(suffix)) found.push(relative(root, path));
  }
  return found;
}

/**
 * A file's deadline: TEST_FILE_TIMEOUT_MS when set, else the file's own `// test-deadline: N s` line (one that
 * must outlast the default, like the multi-node swarm test), else 4 minutes.
 */
function deadlineOf(file: string): number {
  if (process.env.TEST_FILE_TIMEOUT_MS !== undefined) return Number(process.env.TEST_FILE_TIMEOUT_MS);
  const own = /^\/\/ test-deadline: (\d+) s$/m.exec(readFileSync(join(root, file), 'utf8'));
  return own ? Number(own[1]) * 1000 : DEFAULT_DEADLINE_MS;
}

interface FileResult {
  file: string;
  passed: number;
  failed: number;
  ms: number;
}

async function runFile(file: string): Promise<FileResult> {
  const started = Date.now();
  const deadlineMs = deadlineOf(file);
  let output = '';
  if (CONCURRENCY === 1) console.log(`\n# ${file}`);
  // Its own process group, so the deadline also stops whatever the test file started in it; the groups it started
  // (spawn helpers detach their children) are stopped by the file itself on SIGTERM (exit-on-sigterm.ts).
  const child = startProcess(process.execPath, ['--import', 'tsx', '--import', EXIT_ON_SIGTERM, file], {
    cwd: root,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    group: true,
    onOutput: (chunk) => {
      output += chunk.toString();
      if (CONCURRENCY === 1) process.stdout.write(chunk);
    },
  });
  let timedOut = false;
  const { code } = await withDeadline(child.closed, deadlineMs, file).catch(() => {
    timedOut = true;
    return child.stop(KILL_GRACE_MS).then(() => child.closed);
  });
  // uvu prints "Total: N" and "Passed: N" once per process.
  const total = Number(/Total:\s+(\d+)/.exec(output)?.[1] ?? NaN);
  const passed = Number(/Passed:\s+(\d+)/.exec(output)?.[1] ?? NaN);
  const ms = Date.now() - started;
  // Side by side, a file's output is printed whole when it ends, so two files' lines never interleave.
  if (CONCURRENCY > 1) process.stdout.write(`\n# ${file}\n${output}`);
  if (timedOut) console.log(`\n✘ ${file}: killed after ${deadlineMs} ms`);
  if (Number.isNaN(total) || Number.isNaN(passed) || timedOut) {
    if (!timedOut) console.log(`\n✘ ${file}: ended (code ${code}) without uvu totals`);
    return { file, passed: Number.isNaN(passed) ? 0 : passed, failed: Math.max(1, (total || 0) - (passed || 0)), ms };
  }
  const failed = total - passed + (code !== 0 && total === passed ? 1 : 0);
  if (code !== 0 && total === passed) console.log(`\n✘ ${file}: exited with code ${code} after all tests passed`);
  return { file, passed, failed, ms };
}

// A path to one file runs that file whatever its name (how test/runner.test.ts runs its hanging fixture).
const files =
  filter.endsWith('.ts') && existsSync(join(root, filter))
    ? [filter]
    : findTests(root).filter((f) => f.includes(filter));
if (files.length === 0) {
  console.log(`no test files match "${filter}"`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const results: FileResult[] = new Array(files.length);
let next = 0;
async function worker() {
  while (next < files.length) {
    const index = next++;
    results[index] = await runFile(files[index]!);
  }
}
await Promise.all(Array.from({ length: Math.min(CONCURRENCY, files.length) }, worker));
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
console.log('\nfile                                      passed failed   seconds');
for (const r of results) {
  const seconds = (r.ms / 1000).toFixed(1).padStart(9);
  console.log(`${r.file.padEnd(42)}${String(r.passed).padStart(6)} ${String(r.failed).padStart(6)} ${seconds}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
