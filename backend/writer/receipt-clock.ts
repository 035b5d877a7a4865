// When the backend received a frame, as a strictly increasing time per socket: a device's "latest" reading is the one
// received last, so two frames received in the same millisecond must still be told apart in the order they came.

/**
 * A clock that never repeats or steps back: now, or a millisecond after the last time it gave, whichever is later.
 * A socket takes at most DEVICE_MESSAGE_RATE frames a second (100, far under one a millisecond), so it runs ahead of
 * real time by at most its burst of frames in milliseconds, and only while that burst lasts.
 */
export function createReceiptClock(now: () => number = Date.now): () => Date {
  let last = -Infinity;
  return function receivedAt() {
    last = Math.max(now(), last + 1);
    return new Date(last);
  };
}
