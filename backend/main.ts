// Backend entry point: reads its config, watches MongoDB, listens, and shuts down gracefully.
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { createReadiness } from '../lib/readiness.ts';
import { createLogger, readLogDisplay } from '../lib/logger.ts';
import { startServer } from '../lib/serve.ts';
import { readTlsFiles } from '../lib/tls-setting.ts';
import { closeHttpServer, installGracefulShutdown } from '../lib/shutdown.ts';
import { runMain } from '../lib/run-main.ts';
import { logReadinessChanges } from '../lib/readiness-log.ts';
import { createApp } from './app.ts';
import { readConfig } from './config.ts';
import { createDatabaseMonitor } from './database/database-monitor.ts';
import { createReadingStore } from './readings/reading-store.ts';
import { createIndexesAtStartUp } from './readings/reading-indexes.ts';
import { DEVICE_MAX_PAYLOAD, answerHeaderLines } from '../lib/device-protocol.ts';
import { redactUrl } from '../lib/redact-url.ts';
import { databaseName } from './database/mongo-uri.ts';
import { createMetrics } from '../lib/metrics.ts';
import { readMetricsEnabled, readMetricsPort } from '../lib/metrics-setting.ts';
import { startManagementServer } from '../lib/management-app.ts';
import { createBackendMetrics } from './device-thread/backend-metrics.ts';
import { checkoutCommit, readReleaseId } from '../lib/release-id.ts';
import { tellTokenSetup } from './token-setup.ts';
import { reloadReadTokensOnHangup } from './http/read-tokens-reload.ts';
import { startDeviceThread } from './device-thread/device-thread.ts';

runMain('backend', async function main() {
  const config = readConfig(process.env);
  const version = readReleaseId(process.env, () => checkoutCommit(fileURLToPath(new URL('.', import.meta.url))));
  const metricsOn = readMetricsEnabled(process.env);
  const tls = readTlsFiles(process.env);
  const metricsPort = metricsOn ? readMetricsPort(process.env, config.environment) : undefined;
  const { environment, port, host, deviceToken, deviceTokens } = config;
  const uri = config.mongodbUri;
  const log = createLogger({ name: 'backend', environment, level: config.logLevel, ...readLogDisplay(process.env) });

  const readiness = createReadiness();
  const setDatabase = readiness.define('database', { initial: 'disconnected', ready: ['connected'] });
  // Shown, and /api/ready/devices answers by it, but reads go on while the device path is behind (docs/contract.md).
  // `starting` until the first device thread runs: it loads while the database connects and the port opens.
  const setDevices = readiness.define('devices', { initial: 'starting', ready: ['ok'], decides: false });
  logReadinessChanges(readiness, log);
  const registry = metricsOn ? createMetrics({ readiness }).registry : undefined;
  const meters = registry && createBackendMetrics({ registry, readiness, socketsOpen: () => hub.socketsOpen() });
  // First, as it takes longest to load (its own MongoDB driver): the rest of start-up runs meanwhile, and HTTP
  // answers before it is ready. Device sockets opened before then are held (device-thread.ts).
  const hub = startDeviceThread({
    logger: log,
    log: { environment, level: config.logLevel, ...readLogDisplay(process.env) },
    uri,
    databaseName: databaseName(uri),
    token: deviceToken,
    tokens: deviceTokens,
    open: tellTokenSetup(config, log),
    socketsMax: config.deviceSocketsMax,
    socketsPerToken: config.deviceSocketsPerToken,
    onHeard: () => database.heard(),
    onPath: setDevices,
    ...(meters ? { meters } : {}),
  });
  const database = createDatabaseMonitor({
    uri,
    log,
    onState(state, reason) {
      setDatabase(state, reason);
      hub.setConnected(state === 'connected');
    },
  });
  hub.setConnected(database.state() === 'connected');
  const store = createReadingStore({
    client: database.client,
    databaseName: databaseName(uri),
    isConnected: () => database.state() === 'connected',
    uri,
  });
  const indexes = createIndexesAtStartUp({ store, log });
  const app = createApp({
    readiness,
    environment,
    version,
    log,
    databaseName: databaseName(uri),
    devices: hub,
    store,
    metrics: registry,
    metricsOnMainPort: environment === 'local',
    ...(config.readTokens ? { readTokens: config.readTokens } : {}),
    onReadTokenReload: reloadReadTokensOnHangup(process.env, log), // outside local mode, SIGHUP re-reads the file
  });

  // A frame over 64 KiB closes its socket with 1009 (message too big) before it is buffered whole.
  const websocket = new WebSocketServer({ noServer: true, maxPayload: DEVICE_MAX_PAYLOAD });
  // The device keeps under the rate and in-flight bound the answer says (under an older backend's when it says none).
  websocket.on('headers', (headers) => headers.push(...answerHeaderLines(hub.rate)));
  const server = await startServer({ fetch: app.fetch, port, host, websocket, tls });
  const management = await startManagementServer(registry, metricsPort, host);
  const address = server.address();
  log.info(
    {
      port: typeof address === 'object' && address ? address.port : port,
      ...(management ? { metricsPort: (management.address() as { port: number }).port } : {}),
      host: host ?? 'all interfaces',
      scheme: tls ? 'https' : 'http',
      database: redactUrl(uri),
      version,
    },
    'backend listening',
  );

  installGracefulShutdown({
    log,
    readiness,
    delayMs: config.shutdownDelayMs,
    steps: [
      { name: 'device sockets', run: () => hub.closeAll() },
      { name: 'device thread', run: () => hub.stop() },
      { name: 'readings indexes', run: () => indexes.stop() },
      { name: 'http server', run: () => closeHttpServer(server) },
      ...(management ? [{ name: 'management server', run: () => closeHttpServer(management) }] : []),
      { name: 'database', run: () => database.close() },
    ],
  });
  // A device thread that cannot start stops the backend, in one line, as it did when the port waited for it.
  await hub.started;
});
