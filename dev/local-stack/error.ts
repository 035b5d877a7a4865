// Why the local stack could not come up or stay up: the service, a one-line reason, and that service's last log lines.
import { CLIError } from '../../tools/cli-error.ts';

/** `npm start` exits with this when the stack did not come up or a service stopped on its own. */
export const EXIT_STACK = 3;

export class StackError extends CLIError {
  override name = 'StackError';
  readonly service: string;
  readonly lastLines: string[];
  // Plain fields, not parameter properties: those are not erasable syntax, and Node strips types only.
  constructor(service: string, reason: string, lastLines: string[] = []) {
    super(`${service} ${reason}`, { exitCode: EXIT_STACK });
    this.service = service;
    this.lastLines = lastLines;
  }

  /** The reason line, then the service's last lines indented below it. */
  report(): string {
    const tail = this.lastLines.length
      ? `\n  last log lines of ${this.service}:\n${this.lastLines.map((line) => `    ${line}`).join('\n')}`
      : '';
    return `stack: ${this.message}${tail}`;
  }
}
