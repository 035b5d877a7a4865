// What the device service says when it starts listening and when it stops: the records themselves, built
// without I/O so that a reader (and a test) sees every field in one place.
import type { AddressInfo } from 'node:net';
import { redactUrl } from '../lib/redact-url.ts';
import type { DeviceConfig } from './config.ts';
import type { ReadingStats } from './spool/reading-spool.ts';

interface ListeningFacts {
  config: DeviceConfig;
  /** `server.address()`: an object once listening; the configured port stands in otherwise. */
  address: AddressInfo | string | null;
  /** The management server's address, when metrics are served on a port of their own. */
  managementAddress?: AddressInfo | string | null;
  tls: boolean;
  /** The serial path, or undefined when the emulator stands in. */
  serialPath: string | undefined;
  version: string;
  session: string;
  stats: ReadingStats;
}

/** The `device service listening` record; the backend URL is redacted (it may carry credentials). */
export function listeningRecord({
  config,
  address,
  managementAddress,
  tls,
  serialPath,
  version,
  session,
  stats,
}: ListeningFacts) {
  const portOf = (a: AddressInfo | string | null | undefined) => (typeof a === 'object' && a ? a.port : undefined);
  return {
    port: portOf(address) ?? config.port,
    ...(managementAddress !== undefined ? { metricsPort: portOf(managementAddress) } : {}),
    host: config.host ?? 'all interfaces',
    scheme: tls ? 'https' : 'http',
    serial: serialPath ?? 'emulator',
    baudRate: config.baudRate,
    backend: redactUrl(config.socketUrl),
    deviceId: config.deviceId,
    version,
    session,
    spool: { dir: config.spoolDir, ...stats },
  };
}

/** The line said at shutdown about what stays in the spool: news (info) only when something does. */
export function keptInSpool(unacknowledged: number): { level: 'info' | 'debug'; message: string } {
  return {
    level: unacknowledged > 0 ? 'info' : 'debug',
    message: `${unacknowledged} unacknowledged reading${unacknowledged === 1 ? '' : 's'} kept in the spool`,
  };
}
