// What goes to a thread that is not ready yet: the device thread starts while the backend already listens
// (device-thread.ts), so a device may connect and send before it runs. Its events wait here, in order, and go to the
// thread once it is ready; what they may hold is bounded where the frames are read (the relay's read budget).

export interface HeldEvents<T> {
  /** Posts `event`, or holds it while no thread has been ready yet; false once one was and none runs now. */
  tell(event: T, transfer?: ArrayBuffer[]): boolean;
  /** The first thread is ready: what was held goes to it, and from now on each event goes at once. */
  ready(): void;
}

/** `post` reaches the thread, or returns false while none runs. */
export function holdUntilReady<T>(post: (event: T, transfer?: ArrayBuffer[]) => boolean): HeldEvents<T> {
  let held: [T, ArrayBuffer[] | undefined][] | undefined = [];
  return {
    tell(event, transfer) {
      if (!held) return post(event, transfer);
      held.push([event, transfer]);
      return true;
    },
    ready() {
      const waiting = held ?? [];
      held = undefined;
      for (const [event, transfer] of waiting) post(event, transfer);
    },
  };
}
