// The one error class for configuration mistakes: main prints its message as one line and exits 1.

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
