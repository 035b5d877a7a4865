// The one error class for "the smoke run itself could not happen": it maps to exit code 2 and prints as one line.

export const EXIT_PASS = 0;
export const EXIT_FAIL = 1;
export const EXIT_ERROR = 2;

export class SmokeError extends Error {
  override name = 'SmokeError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
