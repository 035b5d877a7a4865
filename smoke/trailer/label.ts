// Labels an issue `ralph:blocked` through the gh CLI, so the automated change agent's next iteration skips it.
import { explain, runCommand } from './exec.ts';
import { BLOCKED_LABEL } from './format.ts';

const GH_TIMEOUT_MS = 30_000;

/** The argument list gh gets; the issue number is checked digits, and no shell ever sees any of it. */
export const labelArgs = (issue: string) => ['issue', 'edit', issue, '--add-label', BLOCKED_LABEL];

/** Returns whether the label was set; any trouble is reported through `warn`, never thrown. */
export async function labelBlocked(
  issue: string,
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void,
): Promise<boolean> {
  const run = await runCommand('gh', labelArgs(issue), { env, timeoutMs: GH_TIMEOUT_MS });
  if (run.code === 0) {
    warn(`labelled issue ${issue} ${BLOCKED_LABEL}`);
    return true;
  }
  warn(`could not label issue ${issue} ${BLOCKED_LABEL}: ${explain('gh', run, 'last', GH_TIMEOUT_MS)}`);
  return false;
}
