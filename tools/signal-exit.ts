// The signals a command-line tool stops on, each with the exit code a shell reports for it (128 + its number).

export const SIGNAL_EXIT_CODES = [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const;
