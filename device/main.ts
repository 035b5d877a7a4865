// Device service entry point: reads the environment, opens the spool, listens, opens the serial port (or emulator),
// connects.
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { SerialPort } from 'serialport';
import { createReadiness } from '../lib/readiness.ts';
import { logReadinessChanges } from '../lib/readiness-log.ts';
import { createLogger, readLogDisplay, type Logger } from '../lib/logger.ts';
import { startServer } from '../lib/serve.ts';
import { readTlsFiles } from '../lib/tls-setting.ts';
import { closeHttpServer, installGracefulShutdown } from '../lib/shutdown.ts';
import { runMain } from '../lib/run-main.ts';
import { createApp, defineDeviceChecks } from './app.ts';
import { DEVICE_METRICS_PORT_DEFAULT, readConfig, type DeviceConfig } from './config.ts';
import { openReadingSpool, type ReadingSpool } from './spool/reading-spool.ts';
import { createBackendLink, type BackendLink } from './link/backend-link.ts';
import { createSerialLink } from './serial/serial-link.ts';
import { createEmulator, EMULATOR_PATH } from './serial/emulator.ts';
import { deviceIdentity } from './device-identity.ts';
import { createMetrics } from '../lib/metrics.ts';
import { readMetricsEnabled, readMetricsPort } from '../lib/metrics-setting.ts';
import { startManagementServer } from '../lib/management-app.ts';
import { createDeviceMetrics, type DeviceMetrics } from './device-metrics.ts';
import { checkoutCommit, readReleaseId } from '../lib/release-id.ts';
import { createAckStall, type AckStall, type AckState } from './link/ack-stall.ts';
import { keptInSpool, listeningRecord } from './startup-log.ts';

/** No ack for this long while connected with readings waiting: the device says it makes no progress. */
const ACK_STALL_MS = 30_000;

runMain('device', async function main() {
  const config = readConfig(process.env);
  const version = readReleaseId(process.env, () => checkoutCommit(fileURLToPath(new URL('.', import.meta.url))));
  const metricsOn = readMetricsEnabled(process.env);
  const tls = readTlsFiles(process.env);
  const metricsPort = metricsOn
    ? readMetricsPort(process.env, config.environment, DEVICE_METRICS_PORT_DEFAULT)
    : undefined;
  const display = readLogDisplay(process.env);
  const log = createLogger({ name: 'device', environment: config.environment, level: config.logLevel, ...display });

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
  const stallTimer = watchAcks(stall, spool, () => readiness.get('backend') === 'connected', setAcks);
  if (!config.deviceToken && config.environment !== 'local') {
    log.warn('DEVICE_TOKEN is not set: only a local-mode backend without a token accepts this device');
  }

  const serial = openSerial(config, { spool, backend, meters, log, onState: setSerial });
  backend.start();
  serial.start();
  const facts = { config, tls: Boolean(tls), serialPath: serial.path, version, session, stats: spool.stats() };
  const managementAddress = management?.address();
  log.info(listeningRecord({ ...facts, address: server.address(), managementAddress }), 'device service listening');

  installGracefulShutdown({
    log,
    readiness,
    delayMs: config.shutdownDelayMs,
    steps: [
      { name: 'http server', run: () => closeHttpServer(server) },
      ...(management ? [{ name: 'management server', run: () => closeHttpServer(management) }] : []),
      { name: 'serial port', run: () => serial.close() },
      {
        name: 'backend socket',
        run: async () => {
          clearInterval(stallTimer);
          await backend.close();
          spool.close();
          // Nothing is lost: what the backend has not acknowledged stays in the spool and goes first next time.
          const { level, message } = keptInSpool(spool.stats().unacknowledged);
          log[level]({ dir: config.spoolDir, ...spool.stats() }, message);
        },
      },
    ],
  });
});

/** Every tenth of the stall bound, turns "readings waiting, connected, no ack for a while" into the `acks` state. */
function watchAcks(
  stall: AckStall,
  spool: ReadingSpool,
  connected: () => boolean,
  onState: (s: AckState, reason?: string) => void,
) {
  return setInterval(function checkAcks() {
    const { unacknowledged, declaredLost } = spool.stats();
    const waiting = unacknowledged + declaredLost;
    const state = stall.state(waiting, connected());
    const why = `${waiting} readings wait and the backend acknowledged none for ${ACK_STALL_MS / 1000} s`;
    onState(state, state === 'stalled' ? why : undefined);
  }, ACK_STALL_MS / 10).unref();
}

interface SerialWiring {
  spool: ReadingSpool;
  backend: BackendLink;
  meters: DeviceMetrics | undefined;
  log: Logger;
  onState: (state: string, reason?: string) => void;
}

/**
 * The serial link, reading into the spool. Local mode has no USB device: the emulator stands in even when
 * SERIAL_PATH is set. `path` is undefined then; `close` stops the emulator too.
 */
function openSerial(config: DeviceConfig, { spool, backend, meters, log, onState }: SerialWiring) {
  const emulator = config.environment === 'local' ? createEmulator({ baudRate: config.baudRate }) : undefined;
  const path = emulator ? EMULATOR_PATH : config.serialPath!;
  const serial = createSerialLink({
    createPort: emulator
      ? emulator.createPort
      : () => new SerialPort({ path, baudRate: config.baudRate, autoOpen: false }),
    path,
    openState: emulator ? 'emulator' : 'connected',
    onState,
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
  return {
    path: emulator ? undefined : path,
    start: () => serial.start(),
    async close() {
      emulator?.stop();
      await serial.close();
    },
  };
}
