// Starts a Hono app on a port, over HTTPS when given TLS files; resolves once listening, or fails with a one-line
// reason (port in use...).
import { serve, type ServerType } from '@hono/node-server';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { WebSocketServer } from 'ws';
import { ConfigError } from './config-error.ts';
import { lingerAfterEarlyAnswers } from './lingering-close.ts';
import { answerNonWebSocketUpgrades } from './non-websocket-upgrade.ts';
import { TLS12_CIPHERS, type TlsFiles } from './tls-setting.ts';

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

/**
 * HTTP/1.1 over TLS 1.2 (ECDHE and AEAD suites only) or 1.3 (no ALPN offer, so no HTTP/2). A client that connects
 * and never finishes its handshake would otherwise hold the connection for Node's 120 s; the same bound as a
 * request head instead.
 */
const TLS_LIMITS = {
  minVersion: 'TLSv1.2',
  ciphers: TLS12_CIPHERS,
  handshakeTimeout: HTTP_LIMITS.headersTimeout,
} as const;

export interface ServeOptions {
  fetch: (request: Request, ...rest: any[]) => Response | Promise<Response>;
  port: number;
  /** Unset: every interface, IPv4 and IPv6. */
  host?: string;
  websocket?: WebSocketServer;
  /** From readTlsFiles: serve HTTPS (and `wss://`) instead of plain HTTP. */
  tls?: TlsFiles;
  /** The setting that chose the port, named when it is in use (default PORT). */
  portSetting?: string;
}

export async function startServer(options: ServeOptions): Promise<Server> {
  const { fetch, port, host, websocket, tls, portSetting = 'PORT' } = options;
  const hosts = host ? [host] : ['::', '0.0.0.0']; // `::` is dual-stack on Linux; 0.0.0.0 where IPv6 is off
  let lastError: NodeJS.ErrnoException | undefined;
  for (const hostname of hosts) {
    try {
      return await listenOnce({ fetch, port, hostname, websocket, tls });
    } catch (error) {
      lastError = error as NodeJS.ErrnoException;
      if (lastError.code !== 'EAFNOSUPPORT' && lastError.code !== 'EADDRNOTAVAIL') break;
    }
  }
  const where = `${host ?? 'all interfaces'} port ${port}`;
  if (lastError?.code === 'EADDRINUSE')
    throw new ConfigError(`${where} is already in use: stop the other process or set ${portSetting}`, {
      cause: lastError,
    });
  if (lastError?.code === 'EACCES')
    throw new ConfigError(`no permission to listen on ${where}: use a port above 1023`, { cause: lastError });
  throw new ConfigError(`cannot listen on ${where}: ${lastError?.message}`, { cause: lastError });
}

function listenOnce({
  fetch,
  port,
  hostname,
  websocket,
  tls,
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
        // Its drain of a body left unread closes the connection too soon: lingerAfterEarlyAnswers does it instead.
        autoCleanupIncoming: false,
        ...(tls
          ? { createServer: createHttpsServer, serverOptions: { ...HTTP_LIMITS, ...TLS_LIMITS, ...tls } }
          : { serverOptions: { ...HTTP_LIMITS } }),
        ...(websocket ? { websocket: { server: websocket } } : {}),
      },
      () => {
        server!.off('error', onError);
        resolve(server as Server);
      },
    );
    server.once('error', onError);
    lingerAfterEarlyAnswers(server as Server);
    if (websocket) answerNonWebSocketUpgrades(server as Server);
  });
}
