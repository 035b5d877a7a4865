// A MongoDB client connected explicitly, and again after each failure until it works or is closed. Left to connect
// by itself on its first operation, a client whose first attempt fails (the database unreachable or hung just then)
// keeps the closed topology that attempt made, and every later operation fails with "Topology is closed", for good:
// the driver (mongodb 7.9, autoConnect) connects only a client that has no topology. An explicit connect() makes a
// new one. Once connected, the driver finds a server that went away again by itself.
import type { MongoClient } from 'mongodb';

export interface ConnectOptions {
  /** Pause between attempts while the database is unreachable. */
  retryMs: number;
  /** Each failed attempt (the caller may say the first one). */
  onFailure?: (error: Error) => void;
}

export interface Connection {
  /** Stops trying, and closes the client. */
  close(): Promise<void>;
}

export function connectUntilClosed(client: MongoClient, { retryMs, onFailure }: ConnectOptions): Connection {
  let closed = false;
  void (async function connectUntilDone() {
    while (!closed) {
      try {
        await client.connect();
        return;
      } catch (error) {
        if (closed) return;
        onFailure?.(error as Error);
        await new Promise((resolve) => setTimeout(resolve, retryMs).unref());
      }
    }
  })();
  return {
    async close() {
      closed = true;
      await client.close();
    },
  };
}
