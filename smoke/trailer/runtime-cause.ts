// The line of a failed `docker info` or `podman info` that says why, among warnings before it and summaries after it.
import type { CommandResult } from './exec.ts';

// Lines that never explain the failure: docker's summary of its own errors, warnings, and blank lines.
const NOISE = [/^errors pretty printing info$/i, /^WARNING:/, /\blevel=(warn|warning|info|debug)\b/];
// The prefixes docker (ERROR:) and podman (Error:) put before an error; the quote leaves them out.
const ERROR_PREFIX = /^(ERROR|Error):\s*/;
// Words of a cause: the daemon or socket cannot be reached or used.
const CAUSE = new RegExp(
  [
    'cannot connect',
    'unable to connect',
    'permission denied',
    'connection refused',
    'no such file',
    'error during connect',
    'is the docker daemon running',
    'cannot set up namespace',
    'dial (unix|tcp)',
  ].join('|'),
  'i',
);

/**
 * The best line in this order: an `Error:` line naming a cause, any line naming one, any `Error:` line, then
 * the first line that is not noise. Undefined when the command said nothing useful.
 */
export function runtimeCause({ stdout, stderr }: Pick<CommandResult, 'stdout' | 'stderr'>): string | undefined {
  const said = (text: string) =>
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line && !NOISE.some((re) => re.test(line)));
  const lines = said(stderr).length ? said(stderr) : said(stdout);
  const prefixed = lines.filter((line) => ERROR_PREFIX.test(line));
  const pick =
    prefixed.find((line) => CAUSE.test(line)) ?? lines.find((line) => CAUSE.test(line)) ?? prefixed[0] ?? lines[0];
  return pick?.replace(ERROR_PREFIX, '');
}
