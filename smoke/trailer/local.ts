// Runs the local stack's one-shot smoke (`npm start -- --once`) as the extra check when compose is unavailable. The
// stack hands SMOKE_JSON to its smoke as --json, and the verdict is read from that result, not from its output.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot as root } from '../../tools/project-root.ts';
import { readSmokeResult } from '../result.ts';
import { explain, runCommand } from './exec.ts';
import { smokeOutcome } from './smoke.ts';

export type LocalOutcome =
  { result: 'PASS'; text: string } | { result: 'FAIL'; text: string } | { result: 'ERROR'; text: string };

// Four services start, become ready, then a browser loads the page; generous on a busy machine.
const LOCAL_TIMEOUT_MS = 240_000;

export async function localStackSmoke(env: NodeJS.ProcessEnv): Promise<LocalOutcome> {
  const dir = await mkdtemp(join(tmpdir(), 'smoke-trailer-local-'));
  const jsonFile = join(dir, 'result.json');
  try {
    const run = await runCommand(process.execPath, ['--import', 'tsx', join(root, 'dev/stack.ts'), '--once'], {
      env: { ...env, SMOKE_JSON: jsonFile },
      cwd: root,
      timeoutMs: LOCAL_TIMEOUT_MS,
    });
    // 0 and 1 are the smoke's own exit codes; anything else is the stack's (or the smoke could not run).
    if (run.code === 0 || run.code === 1) {
      const outcome = smokeOutcome(run, await readSmokeResult(jsonFile), LOCAL_TIMEOUT_MS);
      if (outcome.result === 'PASS')
        return { result: 'PASS', text: `local stack ${outcome.total}/${outcome.total} PASS` };
      if (outcome.result === 'FAIL') {
        const counts = outcome.counts ? ` ${outcome.counts.failed}/${outcome.counts.total} failed, first` : ':';
        return { result: 'FAIL', text: `local stack${counts} ${outcome.first}` };
      }
      return { result: 'ERROR', text: `local stack did not give a verdict (${outcome.problem})` };
    }
    // The stack says why it stopped on a line of its own; prefer it to the services' log noise.
    const said = `${run.stderr}\n${run.stdout}`.split('\n').reverse();
    const reason = said.find((line) => line.startsWith('stack: ') && !line.startsWith('stack: stopped'));
    const why = reason?.slice(7) ?? explain('npm start -- --once', run, 'last', LOCAL_TIMEOUT_MS);
    return { result: 'ERROR', text: `local stack did not run (${why})` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
