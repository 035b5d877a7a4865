// Why the local stack could not come up or stay up: the service, a one-line reason, and that service's last log lines.
import { CLIError } from '../../tools/cli-error.ts';

/** `npm start` exits with this when the stack did not come up or a service stopped on its own. */
export const EXIT_STACK = 3;

/** A CLIError (exit 3) saying `<service> <reason>`, with the service's last log lines as its notes. */
export function stackError(service: string, reason: string, lastLines: string[] = []): CLIError {
  const notes = lastLines.length ? [`last log lines of ${service}:`, ...lastLines.map((line) => `  ${line}`)] : [];
  return new CLIError(`${service} ${reason}`, { exitCode: EXIT_STACK, notes });
}

/** The reason line, then its notes indented below it. */
export const stackReport = (error: CLIError) =>
  [`stack: ${error.message}`, ...error.notes.map((line) => `  ${line}`)].join('\n');
