// How the trailer explains a command that did not succeed; the commands themselves run through tools/child-process.ts.
import type { CommandResult } from '../../tools/child-process.ts';

export { runCommand, type CommandResult } from '../../tools/child-process.ts';

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

/** Why a command did not succeed, in a few words: its first (or last) line of complaint. */
export function explain(
  name: string,
  result: CommandResult,
  which: 'first' | 'last' = 'last',
  timeoutMs?: number,
): string {
  if (result.missing) return `${name} not found on PATH`;
  if (result.error) return `${name} could not start: ${result.error}`;
  if (result.timedOut)
    return `${name} gave no answer within ${timeoutMs ? `${Math.round(timeoutMs / 1000)} s` : 'its time limit'}`;
  const said = lines(result.stderr).length ? lines(result.stderr) : lines(result.stdout);
  const line = which === 'first' ? said[0] : said[said.length - 1];
  return line ?? `${name} exited with code ${result.code}`;
}
