// Pushes the MongoDB connection state into readiness from the driver's monitoring events — never a query per probe.
import { MongoClient, type MongoClientOptions } from 'mongodb';
import type { Logger } from '../../lib/logger.ts';
import { redactUrl, scrubSecrets } from '../../lib/redact-url.ts';
import { connectUntilClosed } from './connect-until-closed.ts';
import { heardFrom, isLateReply, isSilent, silentMs, startSilence, ticked } from './database-silence.ts';

export type DatabaseState = 'connected' | 'disconnected';

/**
 * Every MongoDB client of the backend fails a connection or a server selection within 2 s, not the driver's 30 s:
 * an unreachable database fails a write, and a probe sees it, within the bound readiness promises. Command events
 * feed the watchdog (database-silence.ts).
 */
export const SHARED_DRIVER_OPTIONS = { connectTimeoutMS: 2000, serverSelectionTimeoutMS: 2000, monitorCommands: true };

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
  /**
   * With no reply from the server (heartbeat or command) for this long the database counts as gone, even if no
   * socket has failed. Time the backend's own event loop was blocked is not counted (database-silence.ts).
   */
  staleAfterMs?: number;
  /** Pause between connection attempts while the database is unreachable at boot. */
  retryMs?: number;
  /** Extra driver options (tests and benchmarks use them to compare with the driver's defaults). */
  driverOptions?: MongoClientOptions;
}

export interface DatabaseMonitor {
  client: MongoClient;
  state(): DatabaseState;
  /** The server answered another client of this process (the store thread's): a sign of life, as its own replies. */
  heard(): void;
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
    ...SHARED_DRIVER_OPTIONS,
    appName: 'service-health-kit-backend',
    ...driverOptions,
  });
  let state: DatabaseState = 'disconnected';

  const setState = (next: DatabaseState, reason: string) => {
    if (next === state) return;
    state = next;
    onState(next, scrubSecrets(reason, uri));
  };
  const { watchdog, alive } = watchSilence(client, staleAfterMs, setState);

  client.on('serverHeartbeatSucceeded', () => setState('connected', 'heartbeat succeeded'));
  // A heartbeat the driver timed out only says the reply was late: the watchdog's silence rule judges it.
  client.on('serverHeartbeatFailed', (event) => {
    if (isLateReply(event.failure)) return;
    setState('disconnected', `heartbeat failed: ${event.failure?.message ?? 'unknown error'}`);
  });
  client.on('serverDescriptionChanged', (event) => {
    const { type, error } = event.newDescription;
    if (type === 'Unknown' && !isLateReply(error)) {
      setState('disconnected', `server is unknown: ${error?.message ?? 'no answer'}`);
    }
  });
  client.on('topologyClosed', () => setState('disconnected', 'client closed'));

  // The driver gives up on connect() when no server is found in time; keep trying until it works.
  let reported = false;
  const connection = connectUntilClosed(client, {
    retryMs,
    onFailure(error) {
      if (reported) return;
      log.warn(
        { database: redactUrl(uri), reason: scrubSecrets(error.message, uri) },
        'database unreachable; retrying',
      );
      reported = true;
    },
  });

  return {
    client,
    state: () => state,
    heard: alive,
    async close() {
      clearInterval(watchdog);
      await connection.close();
    },
  };
}

/**
 * A SIGSTOPped server keeps its sockets open and simply stops answering: only the silence tells. Every reply
 * (heartbeat or command) is a sign of life; the watchdog's own lateness is the loop's lag, not the server's.
 */
function watchSilence(
  client: MongoClient,
  staleAfterMs: number,
  setState: (next: DatabaseState, reason: string) => void,
): { watchdog: NodeJS.Timeout; alive: () => void } {
  const intervalMs = Math.min(100, staleAfterMs / 4);
  let silence = startSilence(performance.now());
  const alive = () => void (silence = heardFrom(silence, performance.now()));
  client.on('serverHeartbeatSucceeded', alive);
  client.on('commandSucceeded', alive);
  const watchdog = setInterval(function judgeSilence() {
    const now = performance.now();
    silence = ticked(silence, now, intervalMs);
    if (isSilent(silence, now, staleAfterMs)) {
      setState('disconnected', `no reply for ${Math.round(silentMs(silence, now))} ms (bound ${staleAfterMs} ms)`);
    }
  }, intervalMs);
  watchdog.unref();
  return { watchdog, alive };
}
