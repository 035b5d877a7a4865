// Device service entry point: reads the environment, opens the serial port (or emulator), connects, listens.
import { randomUUID } from 'node:crypto';
import { SerialPort } from 'serialport';
import { createReadiness } from '../lib/readiness.ts';
import { logReadinessChanges } from '../lib/readiness-log.ts';
import { createLogger } from '../lib/logger.ts';
import { startServer } from '../lib/serve.ts';
import { closeHttpServer, installGracefulShutdown } from '../lib/shutdown.ts';
import { runMain } from '../lib/run-main.ts';
import { createApp, defineDeviceChecks } from './app.ts';
import { readConfig } from './config.ts';
import { createReadingQueue } from './reading-queue.ts';
import { createBackendLink } from './backend-link.ts';
import { createSerialLink } from './serial-link.ts';
import { createEmulator, EMULATOR_PATH } from './emulator.ts';
import { deviceIdentity } from './device-identity.ts';
import { DEVICE_MAX_PAYLOAD } from '../lib/device-protocol.ts';
import { redactUrl } from '../lib/redact-url.ts';

// Leaves room in the backend's frame limit for the reading's JSON and escaping (a control character costs 6 bytes).
const MAX_LINE_BYTES = DEVICE_MAX_PAYLOAD / 8;

runMain('device', async function main() {
  const config = readConfig(process.env);
  const log = createLogger({ name: 'device', environment: config.environment, level: config.logLevel });

  const readiness = createReadiness();
  const { setSerial, setBackend } = defineDeviceChecks(readiness);
  logReadinessChanges(readiness, log);
  const app = createApp({ readiness, environment: config.environment, log });
  // Listen first: a port in use is a one-line exit before any device or socket is touched.
  const server = await startServer({ fetch: app.fetch, port: config.port, host: config.host });

  const session = randomUUID();
  const queue = createReadingQueue({ deviceId: config.deviceId, session, log });
  const backend = createBackendLink({
    url: config.socketUrl,
    deviceId: config.deviceId,
    session,
    token: config.deviceToken,
    queue,
    log,
    onState: setBackend,
  });
  if (!config.deviceToken && config.environment !== 'local') {
    log.warn('DEVICE_TOKEN is not set: only a local-mode backend without a token accepts this device');
  }

  // Local mode has no USB device: the emulator stands in even when SERIAL_PATH is set.
  const emulator = config.environment === 'local' ? createEmulator({ baudRate: config.baudRate }) : undefined;
  const path = emulator ? EMULATOR_PATH : config.serialPath!;
  const serial = createSerialLink({
    createPort: emulator
      ? emulator.createPort
      : () => new SerialPort({ path, baudRate: config.baudRate, autoOpen: false }),
    path,
    openState: emulator ? 'emulator' : 'connected',
    onState: setSerial,
    onLine: (line) => {
      // A reading the backend would refuse (its frame over the backend's limit) would be resent forever.
      if (Buffer.byteLength(line) > MAX_LINE_BYTES) {
        log.warn(
          { bytes: Buffer.byteLength(line), limit: MAX_LINE_BYTES, start: line.slice(0, 100) },
          `serial line longer than ${MAX_LINE_BYTES} bytes dropped`,
        );
        return;
      }
      backend.deliver(queue.push(line));
    },
    log,
    ...(emulator ? {} : { identify: deviceIdentity }),
  });

  backend.start();
  serial.start();
  const address = server.address();
  log.info(
    {
      port: typeof address === 'object' && address ? address.port : config.port,
      host: config.host ?? 'all interfaces',
      serial: emulator ? 'emulator' : path,
      baudRate: config.baudRate,
      backend: redactUrl(config.socketUrl),
      deviceId: config.deviceId,
      session,
    },
    'device service listening',
  );

  installGracefulShutdown({
    log,
    readiness,
    delayMs: config.shutdownDelayMs,
    steps: [
      { name: 'http server', run: () => closeHttpServer(server) },
      {
        name: 'serial port',
        run: async () => {
          emulator?.stop();
          await serial.close();
        },
      },
      {
        name: 'backend socket',
        run: async () => {
          await backend.close();
          queue.flush();
          // Nothing is lost silently: readings the backend never acknowledged are counted on the way out.
          if (queue.size > 0)
            log.warn(
              { unacked: queue.size, firstSeq: queue.pending()[0]?.seq },
              `${queue.size} reading(s) not acknowledged by the backend are lost at shutdown`,
            );
        },
      },
    ],
  });
});
