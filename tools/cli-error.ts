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
  /** The message already says where the usage is (`run with --help to list the options`): no pointer is added. */
  pointsToUsage?: boolean;
}

export class CLIError extends Error {
  override name = 'CLIError';
  readonly exitCode: number;
  readonly notes: string[];
  readonly pointsToUsage: boolean;
  // Plain fields, not parameter properties: those are not erasable syntax, and Node strips types only.
  constructor(
    message: string,
    { exitCode = EXIT_USAGE, cause, notes = [], pointsToUsage = false }: CLIErrorOptions = {},
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.exitCode = exitCode;
    this.notes = notes;
    this.pointsToUsage = pointsToUsage;
  }
}

/**
 * A bad argument is one line and a pointer to the usage, never the whole usage: the error with `(<pointer>)`
 * added, unless its message already points there.
 */
export function pointToUsage(error: CLIError, pointer = 'run with --help for the usage'): CLIError {
  if (error.pointsToUsage) return error;
  const { exitCode, notes } = error;
  return new CLIError(`${error.message} (${pointer})`, { exitCode, notes, cause: error.cause, pointsToUsage: true });
}
