// Backend entry point: reads its config, watches MongoDB, listens, and shuts down gracefully.
import { WebSocketServer } from 'ws';
import { createReadiness } from '../lib/readiness.ts';
import { createLogger } from '../lib/logger.ts';
import { startServer } from '../lib/serve.ts';
import { closeHttpServer, installGracefulShutdown } from '../lib/shutdown.ts';
import { runMain } from '../lib/run-main.ts';
import { logReadinessChanges } from '../lib/readiness-log.ts';
import { createApp } from './app.ts';
import { readConfig } from './config.ts';
import { createDatabaseMonitor } from './database-monitor.ts';
import { createDeviceHub } from './device-hub.ts';
import { DEVICE_MAX_PAYLOAD } from '../lib/device-protocol.ts';
import { redactUrl } from '../lib/redact-url.ts';
import { databaseName } from './mongo-uri.ts';

runMain('backend', async function main() {
  const config = readConfig(process.env);
  const { environment, port, host, deviceToken } = config;
  const uri = config.mongodbUri;
  const log = createLogger({ name: 'backend', environment, level: config.logLevel });

  const readiness = createReadiness();
  const setDatabase = readiness.define('database', { initial: 'disconnected', ready: ['connected'] });
  logReadinessChanges(readiness, log);
  const database = createDatabaseMonitor({ uri, log, onState: setDatabase });
  // Secure by default: without a token only local mode lets devices in; elsewhere every upgrade gets 401.
  const openDeviceSocket = !deviceToken && environment === 'local';
  if (!deviceToken) {
    log.warn(
      openDeviceSocket
        ? 'DEVICE_TOKEN is not set: in local mode the device socket accepts devices without a token'
        : 'DEVICE_TOKEN is not set: every device socket upgrade is refused (401); ' +
            'set DEVICE_TOKEN on the backend and the device service',
    );
  }
  const devices = createDeviceHub({
    log,
    token: deviceToken,
    open: openDeviceSocket,
    socketsMax: config.deviceSocketsMax,
  });
  const app = createApp({ readiness, environment, log, databaseName: databaseName(uri), devices });

  // A frame over 64 KiB closes its socket with 1009 (message too big) before it is buffered whole.
  const websocket = new WebSocketServer({ noServer: true, maxPayload: DEVICE_MAX_PAYLOAD });
  const server = await startServer({ fetch: app.fetch, port, host, websocket });
  const address = server.address();
  log.info(
    {
      port: typeof address === 'object' && address ? address.port : port,
      host: host ?? 'all interfaces',
      database: redactUrl(uri),
    },
    'backend listening',
  );

  installGracefulShutdown({
    log,
    readiness,
    delayMs: config.shutdownDelayMs,
    steps: [
      { name: 'device sockets', run: () => devices.closeAll() },
      { name: 'http server', run: () => closeHttpServer(server) },
      { name: 'database', run: () => database.close() },
    ],
  });
});
