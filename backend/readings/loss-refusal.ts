// A declaration the backend will not record: the ranges it would leave the session holding pass the most it keeps.
// Not a failed write (which the writer retries): the writer logs it, summed, and leaves the range unacknowledged.

/**
 * The most disjoint lost ranges kept per device session. Each is a gap a device left between two readings it kept;
 * a session of 100,000 gaps is a spool broken past use or a device declaring on purpose, and each range costs an
 * index entry and a document, so past it a declaration is refused.
 */
export const LOSS_RANGES_KEPT_MAX = 100_000;

export class LossRefusedError extends Error {
  override readonly name = 'LossRefusedError';
}

/** Rethrows what the store's guard made of a refusal as the refusal itself: no database failure, not to be retried. */
export function passRefusal(error: Error): never {
  throw error.cause instanceof LossRefusedError ? error.cause : error;
}
