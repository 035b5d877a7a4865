// The frontend's listening ports: PORT, and with HTTPS_PORT an HTTPS port beside it in the same process, so one
// frontend shows strangers the health on plain HTTP (the container check, the smoke) and signs operators in over TLS.
import type { Server } from 'node:http';
import { ConfigError } from '../lib/config-error.ts';
import { startServer } from '../lib/serve.ts';
import { closeHttpServer } from '../lib/shutdown.ts';
import type { TlsFiles } from '../lib/tls-setting.ts';
import { answerClientErrors } from './client-errors.ts';

export interface Listener {
  /** The setting that chose the port: named when the port is in use. */
  setting: 'PORT' | 'HTTPS_PORT';
  port: number;
  /** Set: this port speaks HTTPS only. */
  tls?: TlsFiles;
}

/**
 * Which ports to open. Without HTTPS_PORT, PORT alone, over HTTPS when the TLS files are set (as the backend does).
 * HTTPS_PORT needs the TLS files, and a port of its own.
 */
export function planListeners(port: number, httpsPort: number | undefined, tls: TlsFiles | undefined): Listener[] {
  if (httpsPort === undefined) return [{ setting: 'PORT', port, tls }];
  if (tls === undefined)
    throw new ConfigError(
      'HTTPS_PORT is set but TLS_CERT_FILE and TLS_KEY_FILE are not: set both to serve HTTPS, or unset HTTPS_PORT',
    );
  if (httpsPort === port && port !== 0)
    throw new ConfigError(`HTTPS_PORT and PORT are both ${port}: HTTPS needs a port of its own`);
  return [
    { setting: 'PORT', port },
    { setting: 'HTTPS_PORT', port: httpsPort, tls },
  ];
}

/** Opens every planned port, in order; if one fails, those already open are closed before the error is thrown. */
export async function startListeners(
  fetch: (request: Request, ...rest: any[]) => Response | Promise<Response>,
  host: string | undefined,
  plan: Listener[],
): Promise<Server[]> {
  const servers: Server[] = [];
  try {
    for (const { setting, port, tls } of plan)
      servers.push(await startServer({ fetch, port, host, tls, portSetting: setting }));
    servers.forEach(answerClientErrors);
  } catch (error) {
    await Promise.all(servers.map((server) => closeHttpServer(server)));
    throw error;
  }
  return servers;
}
