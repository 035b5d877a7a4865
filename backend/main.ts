// Backend entry point: reads its config, watches MongoDB, listens, and shuts down gracefully.
import { WebSocketServer } from 'ws';
import { createReadiness } from '../lib/readiness.ts';
import { createLogger } from '../lib/logger.ts';
import { startServer } from '../lib/serve.ts';
import { readTlsFiles } from '../lib/tls-setting.ts';
import { closeHttpServer, installGracefulShutdown } from '../lib/shutdown.ts';
import { runMain } from '../lib/run-main.ts';
import { logReadinessChanges } from '../lib/readiness-log.ts';
import { createApp } from './app.ts';
import { readConfig } from './config.ts';
import { createDatabaseMonitor } from './database-monitor.ts';
import { createDeviceHub } from './device-hub.ts';
import { createReadingStore } from './reading-store.ts';
import { createIndexesAtStartUp } from './reading-indexes.ts';
import { DEVICE_MAX_PAYLOAD } from '../lib/device-protocol.ts';
import { redactUrl } from '../lib/redact-url.ts';
import { databaseName } from './mongo-uri.ts';
import { createMetrics } from '../lib/metrics.ts';
import { readMetricsEnabled } from '../lib/metrics-setting.ts';
import { createBackendMetrics } from './backend-metrics.ts';

runMain('backend', async function main() {
  const config = readConfig(process.env);
  const metricsOn = readMetricsEnabled(process.env);
  const tls = readTlsFiles(process.env);
  const { environment, port, host, deviceToken, deviceTokens } = config;
  const uri = config.mongodbUri;
  const log = createLogger({ name: 'backend', environment, level: config.logLevel });

  const readiness = createReadiness();
  const setDatabase = readiness.define('database', { initial: 'disconnected', ready: ['connected'] });
  logReadinessChanges(readiness, log);
  const registry = metricsOn ? createMetrics({ readiness }).registry : undefined;
  const meters = registry && createBackendMetrics({ registry, readiness, socketsOpen: () => devices.socketsOpen() });
  const database = createDatabaseMonitor({ uri, log, onState: setDatabase });
  const store = createReadingStore({
    client: database.client,
    databaseName: databaseName(uri),
    isConnected: () => database.state() === 'connected',
    uri,
  });
  const indexes = createIndexesAtStartUp({ store, log });
  // Secure by default: without a token only local mode lets devices in; elsewhere every upgrade gets 401.
  const openDeviceSocket = !deviceToken && !deviceTokens && environment === 'local';
  if (deviceToken && deviceTokens) {
    log.info(
      { devices: deviceTokens.size },
      'DEVICE_TOKENS lists the devices that must use their own token; ' +
        'DEVICE_TOKEN admits only devices it does not list',
    );
  }
  if (!deviceToken && !deviceTokens) {
    log.warn(
      openDeviceSocket
        ? 'DEVICE_TOKEN is not set: in local mode the device socket accepts devices without a token'
        : 'DEVICE_TOKEN is not set: every device socket upgrade is refused (401); ' +
            'set DEVICE_TOKEN on the backend and the device service',
    );
  }
  const devices = createDeviceHub({
    log,
    store: meters ? meters.metered(store) : store,
    token: deviceToken,
    tokens: deviceTokens,
    open: openDeviceSocket,
    socketsMax: config.deviceSocketsMax,
    ...(meters ? { writer: { onRefused: meters.refused } } : {}),
    presence: (states) => store.presence(states),
  });
  const app = createApp({
    readiness,
    environment,
    log,
    databaseName: databaseName(uri),
    devices,
    store,
    metrics: registry,
    ...(config.readTokens ? { readTokens: config.readTokens } : {}),
  });
  if (!config.readTokens && environment !== 'local') {
    log.warn(
      'READ_TOKENS is not set: GET /api/readings and /api/devices answer every request with 401; ' +
        'set READ_TOKENS or READ_TOKENS_FILE on the backend',
    );
  }

  // A frame over 64 KiB closes its socket with 1009 (message too big) before it is buffered whole.
  const websocket = new WebSocketServer({ noServer: true, maxPayload: DEVICE_MAX_PAYLOAD });
  const server = await startServer({ fetch: app.fetch, port, host, websocket, tls });
  const address = server.address();
  log.info(
    {
      port: typeof address === 'object' && address ? address.port : port,
      host: host ?? 'all interfaces',
      scheme: tls ? 'https' : 'http',
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
      { name: 'readings indexes', run: () => indexes.stop() },
      { name: 'http server', run: () => closeHttpServer(server) },
      { name: 'database', run: () => database.close() },
    ],
  });
});
