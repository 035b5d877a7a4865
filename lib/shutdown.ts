// Graceful shutdown on SIGTERM/SIGINT: readiness goes 503 at once, then drain, close in order, exit 0.
import { Server as NetServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Readiness } from './readiness.ts';
import { withDeadline } from './with-deadline.ts';

type Fields = Record<string, unknown>;

/** What shutdown reports through: a pino Logger fits, and plainShutdownLog() gives plain console lines. */
export interface ShutdownLog {
  info(fields: Fields, message: string): void;
  warn(fields: Fields, message: string): void;
  error(fields: Fields, message: string): void;
}

export interface ShutdownStep {
  name: string;
  run: () => unknown;
}

export interface ShutdownOptions {
  log: ShutdownLog;
  /** Set to shutting_down at the first signal; a service without readiness (the frontend) leaves it out. */
  readiness?: Readiness;
  /** SHUTDOWN_DELAY_MS: time for load balancers to see the 503 before we stop accepting. */
  delayMs: number;
  /** Run in order after the drain delay (close sockets, the HTTP server, then dependencies). */
  steps: ShutdownStep[];
  /** Hard limit: exit 1 if the steps have not finished by then. */
  timeoutMs?: number;
  exit?: (code: number) => void;
  /** Waits out `delayMs` (a timer); replaceable so a test can hold the drain delay open and release it. */
  wait?: (ms: number) => Promise<unknown>;
}

export function installGracefulShutdown({
  log,
  readiness,
  delayMs,
  steps,
  timeoutMs = 10_000,
  exit = process.exit,
  wait = sleep,
}: ShutdownOptions) {
  let stopping = false;

  async function shutdown(signal: string) {
    if (stopping) {
      log.warn({ signal }, 'second signal during shutdown: exiting now');
      exit(1);
      return;
    }
    stopping = true;
    readiness?.shutDown();
    log.info(
      { signal, delayMs },
      readiness ? 'shutting down: readiness now reports shutting_down' : 'shutting down: finishing open requests',
    );
    const drain = async () => {
      if (delayMs > 0) await wait(delayMs);
      for (const step of steps) {
        try {
          await step.run();
        } catch (error) {
          log.warn({ step: step.name, err: error }, 'shutdown step failed; continuing');
        }
      }
    };
    // unref: the limit is for steps that hang; it must not itself keep a process alive that has nothing left.
    const finished = await withDeadline(drain(), timeoutMs, { what: 'shutdown', unref: true }).then(
      () => true,
      () => false,
    );
    if (!finished) {
      log.error({ timeoutMs }, 'shutdown did not finish in time: exiting with code 1');
      exit(1);
      return;
    }
    log.info({}, 'shutdown complete');
    exit(0);
  }

  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  return shutdown;
}

/** For a service whose logs are plain console lines: `<name>: <message> (key=value, …)`. */
export function plainShutdownLog(name: string, write: (line: string) => void = console.log): ShutdownLog {
  const line = (fields: Fields, message: string) => {
    const details = Object.entries(fields).map(
      ([key, value]) => `${key}=${value instanceof Error ? value.message : String(value)}`,
    );
    write(`${name}: ${message}${details.length ? ` (${details.join(', ')})` : ''}`);
  };
  return { info: line, warn: line, error: line };
}

/** How long a request already arriving may still take once shutdown starts; one not received by then gets 408. */
export const SHUTDOWN_ARRIVAL_GRACE_MS = 1000;

/**
 * What closeHttpServer needs: a node:http Server, or whatever @hono/node-server's serve() returns (typed as
 * http, http2 or https), so an app passes it as it is. HTTP/2 servers have no idle connections to sweep.
 */
export interface ClosableServer {
  close(callback?: (error?: Error) => void): unknown;
  closeIdleConnections?(): void;
  headersTimeout?: number;
  requestTimeout?: number;
}

/**
 * Stops accepting, lets in-flight requests finish, and closes keep-alive connections as they go idle. A connection
 * with half a request (a head cut off, a body trickling in) is neither idle nor in flight: Node's own request
 * deadlines end it, cut to a grace here so one client that stops mid-request cannot hold the exit past the
 * shutdown's limit. lib/serve.ts has Node check those deadlines often.
 */
export function closeHttpServer(server: ClosableServer): Promise<void> {
  for (const key of ['headersTimeout', 'requestTimeout'] as const) {
    const value = server[key];
    if (value !== undefined && (value === 0 || value > SHUTDOWN_ARRIVAL_GRACE_MS)) {
      server[key] = SHUTDOWN_ARRIVAL_GRACE_MS;
    }
  }
  return new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections?.(), 50);
    const closed = () => {
      clearInterval(sweep);
      resolve();
    };
    // http.Server#close() would also stop Node's check of those deadlines, the only thing that ends a half-sent
    // request. So stop accepting with net.Server's close and close idle connections here, as http.Server's does.
    if (server instanceof NetServer) NetServer.prototype.close.call(server, closed);
    else server.close(closed);
    server.closeIdleConnections?.();
  });
}
