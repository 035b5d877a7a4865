// One write in flight per device, whatever the number of its sockets: the writers of one device (one token's sockets)
// take turns at the database, in the order they asked, while every other device's writer goes on. So a flood of one
// token's sockets has one write in the process's queue for a serialization turn (reading-store.ts), never one per
// socket, and another device's write waits behind at most one of its batches; what the flood sends meanwhile waits
// in its writers, bounded by what each may hold, and goes into their next batches together.

export interface DeviceLanes {
  /** Resolves, with the lane's release, once `deviceId` has no other write in flight. */
  acquire(deviceId: string): Promise<() => void>;
  /** Devices with a write in flight (or waiting for one). */
  readonly busy: number;
}

export function createDeviceLanes(): DeviceLanes {
  // Per device with a write in flight: who waits for it next, in order.
  const waiting = new Map<string, (() => void)[]>();
  function release(deviceId: string) {
    const next = waiting.get(deviceId)!.shift();
    if (next) next();
    else waiting.delete(deviceId);
  }
  return {
    acquire(deviceId) {
      let released = false;
      const done = () => {
        if (released) return;
        released = true;
        release(deviceId);
      };
      const queue = waiting.get(deviceId);
      if (!queue) {
        waiting.set(deviceId, []);
        return Promise.resolve(done);
      }
      return new Promise((resolve) => queue.push(() => resolve(done)));
    },
    get busy() {
      return waiting.size;
    },
  };
}
