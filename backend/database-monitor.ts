// Pushes the MongoDB connection state into readiness from the driver's monitoring events — never a query per probe.
import { MongoClient, type MongoClientOptions } from 'mongodb';
import type { Logger } from '../lib/logger.ts';
import { redactUrl, scrubSecrets } from '../lib/redact-url.ts';

export type DatabaseState = 'connected' | 'disconnected';

export interface DatabaseMonitorOptions {
  uri: string;
  log: Logger;
  /** Receives each change with its reason (already free of secrets). */
  onState: (state: DatabaseState, reason: string) => void;
  /**
   * How often the driver checks the server. The driver's default (10 s) plus its default connect timeout
   * (30 s) means a silently hung server is noticed only after ~40 s; 500 ms (the driver's minimum) and a
   * staleness bound bring that under 2 s.
   */
  heartbeatMs?: number;
  /** With no successful heartbeat for this long the database counts as gone, even if no socket has failed. */
  staleAfterMs?: number;
  /** Pause between connection attempts while the database is unreachable at boot. */
  retryMs?: number;
  /** Extra driver options (tests and benchmarks use them to compare with the driver's defaults). */
  driverOptions?: MongoClientOptions;
}

export interface DatabaseMonitor {
  client: MongoClient;
  state(): DatabaseState;
  close(): Promise<void>;
}

export function createDatabaseMonitor({
  uri,
  log,
  onState,
  heartbeatMs = 500,
  staleAfterMs = 1500,
  retryMs = 1000,
  driverOptions,
}: DatabaseMonitorOptions): DatabaseMonitor {
  const client = new MongoClient(uri, {
    heartbeatFrequencyMS: heartbeatMs,
    connectTimeoutMS: 2000,
    serverSelectionTimeoutMS: 2000,
    appName: 'service-health-kit-backend',
    ...driverOptions,
  });
  let state: DatabaseState = 'disconnected';
  let lastHeartbeat = 0;
  let closed = false;

  const setState = (next: DatabaseState, reason: string) => {
    if (next === state) return;
    state = next;
    onState(next, scrubSecrets(reason, uri));
  };

  client.on('serverHeartbeatSucceeded', () => {
    lastHeartbeat = performance.now();
    setState('connected', 'heartbeat succeeded');
  });
  client.on('serverHeartbeatFailed', (event) => {
    setState('disconnected', `heartbeat failed: ${event.failure?.message ?? 'unknown error'}`);
  });
  client.on('serverDescriptionChanged', (event) => {
    if (event.newDescription.type === 'Unknown') {
      setState('disconnected', `server is unknown: ${event.newDescription.error?.message ?? 'no answer'}`);
    }
  });
  client.on('topologyClosed', () => setState('disconnected', 'client closed'));

  // A SIGSTOPped server keeps its sockets open and simply stops answering: only the silence tells.
  const watchdog = setInterval(
    () => {
      if (state === 'connected' && performance.now() - lastHeartbeat > staleAfterMs) {
        setState('disconnected', `no heartbeat for ${staleAfterMs} ms`);
      }
    },
    Math.min(100, staleAfterMs / 4),
  );
  watchdog.unref();

  // The driver gives up on connect() when no server is found in time; keep trying until it works.
  void (async function connectUntilClosed() {
    let reported = false;
    while (!closed) {
      try {
        await client.connect();
        return;
      } catch (error) {
        if (closed) return;
        if (!reported) {
          log.warn(
            { database: redactUrl(uri), reason: scrubSecrets((error as Error).message, uri) },
            'database unreachable; retrying',
          );
          reported = true;
        }
        await new Promise((resolve) => setTimeout(resolve, retryMs).unref());
      }
    }
  })();

  return {
    client,
    state: () => state,
    async close() {
      closed = true;
      clearInterval(watchdog);
      await client.close();
    },
  };
}
