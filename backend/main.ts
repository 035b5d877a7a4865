// Backend entry point: reads the environment, watches MongoDB, listens, and shuts down gracefully.
import { WebSocketServer } from 'ws';
import { createReadiness } from '../lib/readiness.ts';
import { createLogger } from '../lib/logger.ts';
import { readEnvironment, readInteger, readPort, readString } from '../lib/env.ts';
import { ConfigError } from '../lib/config-error.ts';
import { startServer } from '../lib/serve.ts';
import { closeHttpServer, installGracefulShutdown } from '../lib/shutdown.ts';
import { runMain } from '../lib/run-main.ts';
import { logReadinessChanges } from '../lib/readiness-log.ts';
import { createApp } from './app.ts';
import { createDatabaseMonitor } from './database-monitor.ts';
import { createDeviceHub } from './device-hub.ts';
import { databaseName, redactUri } from './mongo-uri.ts';

runMain('backend', async function main() {
  const env = process.env;
  const environment = readEnvironment(env);
  const port = readPort(env, 'PORT', 3001);
  const host = readString(env, 'HOST');
  const delayMs = readInteger(env, 'SHUTDOWN_DELAY_MS', 0, { max: 60_000 });
  const uri = readString(env, 'MONGODB_URI', 'mongodb://localhost:27017/app');
  if (!/^mongodb(\+srv)?:\/\/[^/?#]+/i.test(uri)) {
    throw new ConfigError(`MONGODB_URI=${redactUri(uri)} is not valid: expected mongodb://host[:port]/database`);
  }
  const log = createLogger({ name: 'backend', environment, level: readString(env, 'LOG_LEVEL', 'info') });

  const readiness = createReadiness();
  const setDatabase = readiness.define('database', { initial: 'disconnected', ready: ['connected'] });
  logReadinessChanges(readiness, log);
  const database = createDatabaseMonitor({ uri, log, onState: setDatabase });
  const devices = createDeviceHub({ log });
  const app = createApp({ readiness, environment, log, databaseName: databaseName(uri), devices });

  const websocket = new WebSocketServer({ noServer: true });
  const server = await startServer({ fetch: app.fetch, port, host, websocket });
  const address = server.address();
  log.info({ port: typeof address === 'object' && address ? address.port : port, host: host ?? 'all interfaces', database: redactUri(uri) }, 'backend listening');

  installGracefulShutdown({
    log,
    readiness,
    delayMs,
    steps: [
      { name: 'device sockets', run: () => devices.closeAll() },
      { name: 'http server', run: () => closeHttpServer(server) },
      { name: 'database', run: () => database.close() },
    ],
  });
});
