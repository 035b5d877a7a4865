// Starts a Hono app on a port; resolves once listening, or fails with a one-line reason (port in use...).
import { serve, type ServerType } from '@hono/node-server';
import type { Server } from 'node:http';
import type { WebSocketServer } from 'ws';
import { ConfigError } from './config-error.ts';
import { answerNonWebSocketUpgrades } from './non-websocket-upgrade.ts';

/**
 * Node's defaults let a request head take 60 s and check only every 30 s, so one client that sends half a head
 * and stops holds its connection (and a shutdown) for up to 90 s. Our clients send a head in one packet.
 */
const HTTP_LIMITS = {
  /** A request head not complete by then gets 408 and the connection closes. */
  headersTimeout: 10_000,
  /** The same for the whole request, body included (our requests have none to speak of). */
  requestTimeout: 30_000,
  /** How often Node looks for connections past those bounds; closeHttpServer's grace relies on it being short. */
  connectionsCheckingInterval: 500,
} as const;

export interface ServeOptions {
  fetch: (request: Request, ...rest: any[]) => Response | Promise<Response>;
  port: number;
  /** Unset: every interface, IPv4 and IPv6. */
  host?: string;
  websocket?: WebSocketServer;
}

export async function startServer({ fetch, port, host, websocket }: ServeOptions): Promise<Server> {
  const hosts = host ? [host] : ['::', '0.0.0.0']; // `::` is dual-stack on Linux; 0.0.0.0 where IPv6 is off
  let lastError: NodeJS.ErrnoException | undefined;
  for (const hostname of hosts) {
    try {
      return await listenOnce({ fetch, port, hostname, websocket });
    } catch (error) {
      lastError = error as NodeJS.ErrnoException;
      if (lastError.code !== 'EAFNOSUPPORT' && lastError.code !== 'EADDRNOTAVAIL') break;
    }
  }
  const where = `${host ?? 'all interfaces'} port ${port}`;
  if (lastError?.code === 'EADDRINUSE')
    throw new ConfigError(`${where} is already in use: stop the other process or set PORT`, { cause: lastError });
  if (lastError?.code === 'EACCES')
    throw new ConfigError(`no permission to listen on ${where}: use a port above 1023`, { cause: lastError });
  throw new ConfigError(`cannot listen on ${where}: ${lastError?.message}`, { cause: lastError });
}

function listenOnce({
  fetch,
  port,
  hostname,
  websocket,
}: Omit<ServeOptions, 'host'> & { hostname: string }): Promise<Server> {
  return new Promise((resolve, reject) => {
    let server: ServerType | undefined;
    const onError = (error: Error) => {
      server?.close();
      reject(error);
    };
    server = serve(
      {
        fetch,
        port,
        hostname,
        serverOptions: { ...HTTP_LIMITS },
        ...(websocket ? { websocket: { server: websocket } } : {}),
      },
      () => {
        server!.off('error', onError);
        resolve(server as Server);
      },
    );
    server.once('error', onError);
    if (websocket) answerNonWebSocketUpgrades(server as Server);
  });
}
