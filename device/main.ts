// Device service entry point: reads the environment, opens the spool, listens, opens the serial port (or emulator),
// connects.
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { SerialPort } from 'serialport';
import { createReadiness } from '../lib/readiness.ts';
import { logReadinessChanges } from '../lib/readiness-log.ts';
import { createLogger } from '../lib/logger.ts';
import { startServer } from '../lib/serve.ts';
import { readTlsFiles } from '../lib/tls-setting.ts';
import { closeHttpServer, installGracefulShutdown } from '../lib/shutdown.ts';
import { runMain } from '../lib/run-main.ts';
import { createApp, defineDeviceChecks } from './app.ts';
import { readConfig } from './config.ts';
import { openReadingSpool } from './reading-spool.ts';
import { createBackendLink } from './backend-link.ts';
import { createSerialLink } from './serial-link.ts';
import { createEmulator, EMULATOR_PATH } from './emulator.ts';
import { deviceIdentity } from './device-identity.ts';
import { redactUrl } from '../lib/redact-url.ts';
import { createMetrics } from '../lib/metrics.ts';
import { readMetricsEnabled, readMetricsPort } from '../lib/metrics-setting.ts';
import { startManagementServer } from '../lib/management-app.ts';
import { createDeviceMetrics } from './device-metrics.ts';
import { checkoutCommit, readReleaseId } from '../lib/release-id.ts';
import { createAckStall } from './ack-stall.ts';

/** No ack for this long while connected with readings waiting: the device says it makes no progress. */
const ACK_STALL_MS = 30_000;

runMain('device', async function main() {
  const config = readConfig(process.env);
  const version = readReleaseId(process.env, () => checkoutCommit(fileURLToPath(new URL('.', import.meta.url))));
  const metricsOn = readMetricsEnabled(process.env);
  const tls = readTlsFiles(process.env);
  const metricsPort = metricsOn ? readMetricsPort(process.env, config.environment) : undefined;
  const log = createLogger({ name: 'device', environment: config.environment, level: config.logLevel });

  // The spool first: an unwritable DEVICE_SPOOL_DIR is a one-line exit like a bad setting. It holds what earlier
  // sessions left unacknowledged; this session's readings queue after those.
  const readiness = createReadiness();
  const { setSerial, setBackend, setSpool, setAcks } = defineDeviceChecks(readiness);
  logReadinessChanges(readiness, log);
  const session = randomUUID();
  const spool = openReadingSpool({
    dir: config.spoolDir,
    maxBytes: config.spoolMaxBytes,
    session,
    deviceId: config.deviceId,
    log,
    onState: setSpool,
  });

  const registry = metricsOn ? createMetrics({ readiness }).registry : undefined;
  const meters = registry && createDeviceMetrics({ registry, stats: () => spool.stats() });
  const app = createApp({
    readiness,
    environment: config.environment,
    version,
    log,
    readings: spool,
    metrics: registry,
    metricsOnMainPort: config.environment === 'local',
  });
  // Then listen: a port in use is a one-line exit before any device or socket is touched.
  const server = await startServer({ fetch: app.fetch, port: config.port, host: config.host, tls });
  const management = await startManagementServer(registry, metricsPort, config.host);

  const backend = createBackendLink({
    url: config.socketUrl,
    deviceId: config.deviceId,
    token: config.deviceToken,
    ...(config.backendCa ? { ca: config.backendCa } : {}),
    spool,
    log,
    onState: (state, reason) => {
      meters?.backendState(state);
      setBackend(state, reason);
      if (state === 'connected') stall.progress();
    },
    onAck: (ack, forgotten) => {
      stall.progress();
      meters?.acked(ack, forgotten);
    },
  });
  // Readiness is pushed, not asked: a timer turns "no ack for a while" into the `acks` check's state.
  const stall = createAckStall({ stallMs: ACK_STALL_MS });
  const stallTimer = setInterval(function checkAcks() {
    const { unacknowledged, declaredLost } = spool.stats();
    const waiting = unacknowledged + declaredLost;
    const acks = stall.state(waiting, readiness.get('backend') === 'connected');
    setAcks(
      acks,
      acks === 'stalled'
        ? `${waiting} readings wait and the backend acknowledged none for ${ACK_STALL_MS / 1000} s`
        : undefined,
    );
  }, ACK_STALL_MS / 10).unref();
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
      // Written to the spool (write(2)) before it is sent: a crash from here on loses nothing.
      const reading = spool.push(line);
      if (reading) meters?.read(spool.session, reading);
      // Also when it could not be written: that loss is declared to the backend, which then acks past it.
      backend.deliver();
    },
    log,
    ...(meters ? { onOverlong: meters.lineTooLong } : {}),
    ...(emulator ? {} : { identify: deviceIdentity }),
  });

  backend.start();
  serial.start();
  const address = server.address();
  log.info(
    {
      port: typeof address === 'object' && address ? address.port : config.port,
      ...(management ? { metricsPort: (management.address() as { port: number }).port } : {}),
      host: config.host ?? 'all interfaces',
      scheme: tls ? 'https' : 'http',
      serial: emulator ? 'emulator' : path,
      baudRate: config.baudRate,
      backend: redactUrl(config.socketUrl),
      deviceId: config.deviceId,
      version,
      session,
      spool: { dir: config.spoolDir, ...spool.stats() },
    },
    'device service listening',
  );

  installGracefulShutdown({
    log,
    readiness,
    delayMs: config.shutdownDelayMs,
    steps: [
      { name: 'http server', run: () => closeHttpServer(server) },
      ...(management ? [{ name: 'management server', run: () => closeHttpServer(management) }] : []),
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
          clearInterval(stallTimer);
          await backend.close();
          spool.close();
          // Nothing is lost: what the backend has not acknowledged stays in the spool and goes first next time.
          const { unacknowledged } = spool.stats();
          log[unacknowledged > 0 ? 'info' : 'debug'](
            { dir: config.spoolDir, ...spool.stats() },
            `${unacknowledged} unacknowledged reading${unacknowledged === 1 ? '' : 's'} kept in the spool`,
          );
        },
      },
    ],
  });
});
