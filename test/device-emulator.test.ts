// Local mode: no port is opened, the emulator's readings reach a real backend, and logs are coloured text.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { READ_AUTH, type Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { waitFor } from './support/deadline.ts';
import { freePort } from '../tools/free-port.ts';
import { startMongoStandin, type MongoStandin } from '../dev/mongo-standin/server.ts';
import { watchReadiness, type ReadinessWatch } from './support/readiness-watch.ts';
import { startBackend, startDevice, storedReadings } from './support/device-services.ts';

let mongo: MongoStandin | undefined;
let watch: ReadinessWatch | undefined;

test.after.each(async () => {
  await watch?.stop();
  await stopAll();
  await mongo?.close();
});

test(
  'serial is "emulator"; ' + '503 until the backend is up, then 200 and emulated readings are stored in order',
  async () => {
    mongo = await startMongoStandin();
    const backendPort = await freePort();
    const device: Service = await startDevice({
      NODE_ENV: 'local',
      SERIAL_PATH: '/dev/does-not-exist', // ignored in local mode: no real port is opened
      BACKEND_URL: `http://127.0.0.1:${backendPort}`,
      DEVICE_ID: 'emulated-1',
      NO_COLOR: undefined,
      FORCE_COLOR: undefined,
    });
    watch = watchReadiness(device.url);
    const alone = await watch.until((o) => o.checks.serial === 'emulator', {
      since: 0,
      timeout: 5000,
      what: 'serial emulator',
    });
    assert.is(alone.status, 503);
    assert.is(alone.checks.backend, 'disconnected');

    const backend = await startBackend(mongo.url, backendPort);
    const ready = await watch.until((o) => o.status === 200, { since: 0, timeout: 5000, what: 'device ready' });
    assert.equal(ready.checks, { serial: 'emulator', backend: 'connected', spool: 'writable' });
    const body = await (await fetch(`${device.url}/api/ready`)).json();
    assert.is(body.status, 'ready');

    // One line a second: three stored readings take about three seconds.
    await waitFor(() => storedReadings(backend).length >= 3, { timeout: 8000, what: 'three emulated readings stored' });
    const stored = storedReadings(backend);
    assert.ok(
      stored.every((r) => /^temperature_c=\d+\.\d\d$/.test(r.value)),
      JSON.stringify(stored),
    );
    const seqs = stored.map((r) => r.seq);
    assert.equal(
      seqs,
      [...seqs].sort((a, b) => a - b),
      'in sequence order',
    );
    assert.is(new Set(seqs).size, seqs.length, 'no duplicates');
    const devices = (await (await fetch(`${backend.url}/api/devices`, { headers: READ_AUTH })).json()).devices;
    assert.is(devices[0].deviceId, 'emulated-1');
    assert.is(devices[0].connected, true);

    const output = device.stdout.join('\n');
    assert.match(output, /\x1b\[\d+m/, 'local logs are coloured');
    assert.ok(
      device.stdout.every((line) => !line.startsWith('{')),
      'local logs are not JSON',
    );
    assert.match(output, /serial port \/dev\/emulated-sensor open/);
    assert.not.match(output, /does-not-exist/);
  },
);

test.run();
