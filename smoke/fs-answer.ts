// File-system checks with a bound on the answer: some mounts never answer (Node's recursive mkdir spins forever on
// procfs).
import { DeadlineError, withDeadline } from '../lib/with-deadline.ts';
import { CLIError } from '../tools/cli-error.ts';

export const FS_ANSWER_MS = 3000;

/** Resolves as `work` does, or rejects after `ms` with a CLIError naming `what`, its cause the DeadlineError. */
export function answerWithin<T>(work: Promise<T>, what: string, ms = FS_ANSWER_MS): Promise<T> {
  return withDeadline(work, ms, what).catch((error: unknown) => {
    if (!(error instanceof DeadlineError)) throw error;
    throw new CLIError(`${what} is not writable (no answer within ${ms} ms)`, { cause: error });
  });
}

/** The check gave no answer in time. Its call still holds a libuv thread, so the CLI exits at once after saying so. */
export const gaveNoAnswer = (error: unknown): error is CLIError =>
  error instanceof CLIError && error.cause instanceof DeadlineError;
