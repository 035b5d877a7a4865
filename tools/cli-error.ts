// The one error type of the project's command-line tools, in the style of citty's CLIError (citty itself is not
// used: see smoke/cli.ts): a message that is printed as one line, and the exit code the tool leaves with (2, a
// usage or setup mistake, unless told).
//
// The services keep lib/config-error.ts: a service's configuration mistake always exits 1 through
// lib/run-main.ts, which also writes it as a fatal JSON log line; a CLI's error chooses its own exit code.

export const EXIT_USAGE = 2;

export interface CLIErrorOptions {
  exitCode?: number;
  cause?: unknown;
  /** Lines that back the message up, printed indented below it (a service's last log lines); none by default. */
  notes?: string[];
}

export class CLIError extends Error {
  override name = 'CLIError';
  readonly exitCode: number;
  readonly notes: string[];
  // Plain fields, not parameter properties: those are not erasable syntax, and Node strips types only.
  constructor(message: string, { exitCode = EXIT_USAGE, cause, notes = [] }: CLIErrorOptions = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.exitCode = exitCode;
    this.notes = notes;
  }
}
