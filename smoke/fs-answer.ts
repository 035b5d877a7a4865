// File-system checks with a bound on the answer: some mounts never answer (Node's recursive mkdir spins forever on
// procfs).
import { CLIError } from '../tools/cli-error.ts';

export const FS_ANSWER_MS = 3000;

/** The check gave no answer in time. Its call still holds a libuv thread, so the CLI exits at once after saying so. */
export class NoAnswerError extends CLIError {
  override name = 'NoAnswerError';
}

/** Resolves as `work` does, or rejects with a NoAnswerError naming `what` after `ms`. */
export function answerWithin<T>(work: Promise<T>, what: string, ms = FS_ANSWER_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswerError(`${what} is not writable (no answer within ${ms} ms)`)), ms);
  });
  work.catch(() => {}); // once late, its eventual failure no longer matters
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
