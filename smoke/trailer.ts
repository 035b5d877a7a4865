// The automated change agent's commit trailer: prints one line `smoke: <PASS|FAIL|SKIPPED> — <detail>` and notes
// its evidence on the smoked tree, checks a message for one, or verifies a commit's against its evidence.
//
//   npx tsx smoke/trailer.ts [--issue N] [--local-stack] ...   exit 0 with a trailer, 2 without one
//   npx tsx smoke/trailer.ts check <commit-message-file>      exit 0 if it ends with one good trailer, else 1
//   npx tsx smoke/trailer.ts verify <rev>                     exit 0 if bound to the commit's tree, 1 not, 2 unknown
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { explain, runCommand } from '../tools/child-process.ts';
import { CLIError, pointToUsage } from '../tools/cli-error.ts';
import { projectRoot as root } from '../tools/project-root.ts';
import { COMPOSE_FILES, parseTrailerArgs, USAGE, type ProduceOptions } from './trailer/args.ts';
import { checkMessage } from './trailer/check.ts';
import { baselineOf } from './trailer/baseline.ts';
import { COMPOSE_PROJECT } from './trailer/compose.ts';
import type { Baseline } from './trailer/evidence-note.ts';
import { BLOCKED_LABEL, formatTrailer, type Trailer } from './trailer/line.ts';
import { detectRuntime } from './trailer/runtime.ts';
import { smokeLocalStack, type SmokeOutcome } from './trailer/smoke.ts';
import { noteRun, smokeTree, treeTrailer, type TreeSmokeOptions } from './trailer/smoke-tree.ts';
import { createGit, indexTree, type Git } from './trailer/tree.ts';
import { verifyCommit } from './trailer/verify.ts';

const GH_TIMEOUT_MS = 30_000;

const warn = (line: string) => process.stderr.write(`trailer: ${line}\n`);

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseTrailerArgs(argv);
  } catch (error) {
    throw error instanceof CLIError ? pointToUsage(error) : error;
  }
  if (args.command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (args.command === 'check') {
    const text = await readFile(args.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new CLIError(`cannot read ${args.file}: ${error.code ?? error.message}`);
    });
    const reason = checkMessage(text);
    if (reason === undefined) return 0;
    process.stderr.write(`smoke trailer check: ${reason}\n`);
    return 1;
  }
  if (args.command === 'verify') {
    // The repository you stand in; the trailer itself smokes its own project's.
    const verdict = await verifyCommit(createGit(process.cwd(), process.env), args.rev);
    if (verdict.code === 0) process.stdout.write(`smoke trailer verified: ${verdict.line}\n`);
    else process.stderr.write(`smoke trailer verify: ${verdict.line}\n`);
    return verdict.code;
  }
  const { trailer, baseline } = await produceTrailer(args, createGit(root, process.env), process.env);
  process.stdout.write(`${formatTrailer(trailer)}\n`);
  if (trailer.verdict === 'FAIL' && args.issue) {
    // Only a parent known to fail as well spares the label: an unknown baseline may be this change's doing.
    if (args.labelRegressionsOnly && baseline?.verdict === 'FAIL')
      warn(`not labelling issue ${args.issue} ${BLOCKED_LABEL}: the parent failed too (--label-regressions-only)`);
    else await labelBlocked(args.issue, process.env);
  }
  return 0;
}

interface Produced {
  trailer: Trailer;
  baseline?: Baseline | null;
}

/** Compose when a runtime is usable; otherwise SKIPPED with the reason (and, if asked, the local stack). */
async function produceTrailer(options: ProduceOptions, git: Git, env: NodeJS.ProcessEnv): Promise<Produced> {
  const runtime = await detectRuntime(env);
  if (!runtime.ok)
    return { trailer: options.localStack ? await withLocalStack(runtime.reason, env) : skipped(runtime.reason) };
  const file = options.composeFile ?? COMPOSE_FILES.map((name) => join(root, name)).find((path) => existsSync(path));
  if (!file) return { trailer: skipped(`no compose file in the project (looked for ${COMPOSE_FILES.join(', ')})`) };
  const named = await indexTree(git);
  if (!named.ok) return { trailer: skipped(named.reason) };
  const at = new Date().toISOString();
  const smokeOptions: TreeSmokeOptions = {
    git,
    root,
    composeFile: file,
    runtime: runtime.runtime,
    project: COMPOSE_PROJECT,
    waitTimeoutS: options.waitTimeoutS,
    targets: { frontend: options.frontend, backend: options.backend },
    artifacts: options.artifacts,
    probeTimeoutMs: options.probeTimeoutMs,
    env,
    warn,
  };
  const run = await smokeTree(named.tree, smokeOptions);
  const baseline =
    run.verdict === 'FAIL'
      ? await baselineOf(git, {
          boundS: options.baselineTimeoutS,
          smokeParent: (tree, deadline) => smokeParent(tree, deadline, smokeOptions),
        })
      : null;
  const problem = await noteRun(git, { tree: named.tree, run, runtime: runtime.runtime, at, baseline });
  if (problem) warn(problem);
  return { trailer: treeTrailer(named.tree, run, baseline), baseline };
}

/** The parent's tree smoked as the change's was, its own report apart; a verdict reached in time is noted. */
async function smokeParent(tree: string, deadline: number, options: TreeSmokeOptions) {
  const at = new Date().toISOString();
  warn(`smoking the parent's tree ${tree.slice(0, 12)} for a baseline (it has no evidence)`);
  const run = await smokeTree(tree, { ...options, artifacts: join(options.artifacts, 'parent'), deadline });
  if (!run.late) {
    const problem = await noteRun(options.git, { tree, run, runtime: options.runtime, at, baseline: null });
    if (problem) warn(problem);
  }
  return run;
}

const skipped = (detail: string): Trailer => ({ verdict: 'SKIPPED', detail });

// What did get verified is added to the reason; a failing local probe is a real failure, but never a PASS.
async function withLocalStack(reason: string, env: NodeJS.ProcessEnv): Promise<Trailer> {
  const local = await smokeLocalStack(env);
  if (local.result === 'FAIL') return { verdict: 'FAIL', detail: `${localStack(local)}; compose not run: ${reason}` };
  return { verdict: 'SKIPPED', detail: `${reason}; ${localStack(local)}` };
}

function localStack(outcome: SmokeOutcome): string {
  if (outcome.result === 'PASS') return `local stack ${outcome.total}/${outcome.total} PASS`;
  if (outcome.result === 'ERROR') return `local stack ${outcome.problem}`;
  const counts = outcome.counts ? ` ${outcome.counts.failed}/${outcome.counts.total} failed, first` : ':';
  return `local stack${counts} ${outcome.first}`;
}

/**
 * Labels an issue through the gh CLI, so the agent's next iteration skips it: an argument list of checked digits,
 * no shell. Any trouble is said on stderr, never thrown: the trailer is printed all the same.
 */
async function labelBlocked(issue: string, env: NodeJS.ProcessEnv): Promise<void> {
  const run = await runCommand('gh', ['issue', 'edit', issue, '--add-label', BLOCKED_LABEL], {
    env,
    timeoutMs: GH_TIMEOUT_MS,
  });
  if (run.code === 0) warn(`labelled issue ${issue} ${BLOCKED_LABEL}`);
  else warn(`could not label issue ${issue} ${BLOCKED_LABEL}: ${explain('gh', run, 'last', GH_TIMEOUT_MS)}`);
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    if (error instanceof CLIError) warn(error.message);
    else warn(`no trailer produced: ${(error as Error)?.stack ?? String(error)}`);
    process.exitCode = error instanceof CLIError ? error.exitCode : 2;
  },
);
