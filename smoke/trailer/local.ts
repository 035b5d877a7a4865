// Runs the local stack's one-shot smoke (`npm start -- --once`) as the extra check when compose is unavailable.
import { join } from 'node:path';
import { explain, runCommand } from './exec.ts';
import { describeProbe, firstFailure, parseSmokeLines } from './report.ts';
import { projectRoot as root } from '../../tools/project-root.ts';

export type LocalOutcome =
  { result: 'PASS'; text: string } | { result: 'FAIL'; text: string } | { result: 'ERROR'; text: string };

// Four services start, become ready, then a browser loads the page; generous on a busy machine.
const LOCAL_TIMEOUT_MS = 240_000;

export async function localStackSmoke(env: NodeJS.ProcessEnv): Promise<LocalOutcome> {
  const run = await runCommand(process.execPath, ['--import', 'tsx', join(root, 'dev/stack.ts'), '--once'], {
    env,
    cwd: root,
    timeoutMs: LOCAL_TIMEOUT_MS,
  });
  const report = parseSmokeLines(run.stdout);
  const verdict = report.verdict;
  if (run.code === 0 && verdict?.pass)
    return { result: 'PASS', text: `local stack ${verdict.total}/${verdict.total} PASS` };
  if (run.code === 1 && verdict && !verdict.pass) {
    const failing = firstFailure(report.probes);
    const first = failing ? `, first ${describeProbe(failing)}` : '';
    return { result: 'FAIL', text: `local stack ${verdict.failed}/${verdict.total} failed${first}` };
  }
  // The stack says why it stopped on a line of its own; prefer it to the services' log noise.
  const reason = [...`${run.stderr}\n${run.stdout}`.split('\n')].reverse().find((line) => line.startsWith('stack: '));
  const why = reason?.slice(7) ?? explain('npm start -- --once', run, 'last', LOCAL_TIMEOUT_MS);
  return { result: 'ERROR', text: `local stack did not run (${why})` };
}
