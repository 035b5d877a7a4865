// The device's start and stop records: every field from its source, the backend URL redacted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DeviceConfig } from './config.ts';
import { keptInSpool, listeningRecord } from './startup-log.ts';

const config: DeviceConfig = {
  port: 3002,
  host: undefined,
  environment: 'production',
  logLevel: 'info',
  socketUrl: 'wss://user:secret@backend.example/api/device/socket',
  serialPath: '/dev/ttyUSB0',
  baudRate: 9600,
  deviceId: 'sensor-1',
  deviceToken: 'token',
  backendCa: undefined,
  shutdownDelayMs: 0,
  spoolDir: '/var/spool/device',
  spoolMaxBytes: 1 << 20,
};
const stats = { unacknowledged: 2, spoolBytes: 10, dropped: 0, unwritten: 0, refused: 0, declaredLost: 0 };
const facts = { config, tls: false, serialPath: '/dev/ttyUSB0', version: 'abc', session: 's-1', stats };

test('the listening record tells the bound port, the serial path and the spool, and hides the credentials', () => {
  const record = listeningRecord({ ...facts, address: { address: '::', family: 'IPv6', port: 41234 } });
  assert.equal(record, {
    port: 41234,
    host: 'all interfaces',
    scheme: 'http',
    serial: '/dev/ttyUSB0',
    baudRate: 9600,
    backend: listeningRecord({ ...facts, address: null }).backend,
    deviceId: 'sensor-1',
    version: 'abc',
    session: 's-1',
    spool: { dir: '/var/spool/device', ...stats },
  });
  assert.not.ok(record.backend.includes('secret'), record.backend);
  assert.ok(record.backend.includes('backend.example'), record.backend);
});

test('the listening record falls back to the configured port, and names the emulator and the metrics port', () => {
  const record = listeningRecord({
    ...facts,
    config: { ...config, host: '127.0.0.1' },
    tls: true,
    serialPath: undefined,
    address: null,
    managementAddress: { address: '127.0.0.1', family: 'IPv4', port: 9464 },
  });
  assert.equal(
    [record.port, record.metricsPort, record.host, record.scheme, record.serial],
    [3002, 9464, '127.0.0.1', 'https', 'emulator'],
  );
});

test('what stays in the spool is news only when something does', () => {
  assert.equal(keptInSpool(0), { level: 'debug', message: '0 unacknowledged readings kept in the spool' });
  assert.equal(keptInSpool(1), { level: 'info', message: '1 unacknowledged reading kept in the spool' });
  assert.equal(keptInSpool(3), { level: 'info', message: '3 unacknowledged readings kept in the spool' });
});

test.run();
