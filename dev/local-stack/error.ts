// Why the local stack could not come up or stay up: the service, a one-line reason, and that service's last log lines.

export class StackError extends Error {
  override name = 'StackError';
  readonly service: string;
  readonly lastLines: string[];
  // Plain fields, not parameter properties: those are not erasable syntax, and Node strips types only.
  constructor(service: string, reason: string, lastLines: string[] = []) {
    super(`${service} ${reason}`);
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
