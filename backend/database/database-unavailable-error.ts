// The one error the readings store throws for a database that cannot answer now: told apart by class and `code`.

/** Why the database could not answer: not connected (the monitor says so), too slow, or it refused. */
type DatabaseUnavailableCode = 'not-connected' | 'timeout' | 'failed';

/** The database cannot answer now (down, hung, refusing): a 503, a retry, never a stack trace. */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
  readonly code: DatabaseUnavailableCode;
  // A plain field, not a parameter property: Node strips types only.
  constructor(code: DatabaseUnavailableCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
