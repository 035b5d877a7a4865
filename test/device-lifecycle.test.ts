// Production logging and graceful shutdown of the real device service process.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { waitFor } from './support/deadline.ts';
import { startMongoStandin, type MongoStandin } from '../dev/mongo-standin/server.ts';
import { ptyDir, removePtyDir, startPtyPair, type PtyPair } from './support/pty-pair.ts';
import { jsonLines, startBackend, startDevice, storedReadings } from './support/device-services.ts';

let mongo: MongoStandin;
let dir: string;
let pty: PtyPair;
let backend: Service;

test.before.each(async () => {
  mongo = await startMongoStandin();
  dir = ptyDir();
  pty = await startPtyPair(dir);
  backend = await startBackend(mongo.url);
});

test.after.each(async () => {
  await stopAll();
  await mongo?.close();
  removePtyDir(dir);
});

const ready = (device: Service) =>
  waitFor(async () => (await fetch(`${device.url}/api/ready`)).status === 200, { timeout: 5000, what: 'device ready' });

test('production logs: every line is JSON with a numeric level; request lines carry req', async () => {
  const device = await startDevice({ SERIAL_PATH: pty.devicePath, BACKEND_URL: backend.url, LOG_LEVEL: 'debug' });
  await ready(device);
  await fetch(`${device.url}/api/health`);
  assert.is((await fetch(`${device.url}/api/nothing`)).status, 404);
  pty.write('logged line\n');
  await waitFor(() => storedReadings(backend).length === 1, { timeout: 3000, what: 'reading stored' });
  await waitFor(() => jsonLines(device).filter((l) => l.msg === 'request completed').length >= 3, {
    timeout: 2000,
    what: 'request lines',
  });

  const lines = jsonLines(device); // throws naming the first line that is not JSON
  assert.ok(lines.length >= 5, `only ${lines.length} lines`);
  for (const line of lines) {
    assert.type(line.level, 'number');
    assert.type(line.time, 'number');
    assert.is(line.name, 'device');
  }
  const requests = lines.filter((l) => l.msg === 'request completed');
  assert.ok(requests.every((l) => typeof l.req?.method === 'string' && typeof l.req?.url === 'string'));
  assert.ok(requests.some((l) => l.req.url === '/api/nothing' && l.res.statusCode === 404 && l.level === 30));
  assert.ok(
    requests.some((l) => l.req.url === '/api/health' && l.level === 20),
    'a passing probe is a debug line',
  );
  const started = lines.find((l) => l.msg === 'device service listening')!;
  assert.is(started.serial, pty.devicePath);
  assert.is(started.baudRate, 9600);
  assert.ok(lines.some((l) => l.msg === 'readiness: backend is connected' && l.level === 30));
});

test("BACKEND_URL's password is never logged: the listening line and the socket's lines show it as ***", async () => {
  const backendUrl = backend.url.replace('//', '//dev:S3cret-Pa55@');
  const device = await startDevice({ SERIAL_PATH: pty.devicePath, BACKEND_URL: backendUrl });
  const connected = await waitFor(() => jsonLines(device).find((l) => l.msg === 'backend socket connected'), {
    timeout: 5000,
    what: 'the socket connected (a line carrying its URL)',
  });
  await device.stop();
  assert.not.match(device.lines.join('\n'), 'S3cret-Pa55');
  const started = jsonLines(device).find((l) => l.msg === 'device service listening')!;
  assert.is(started.backend, `${backendUrl.replace('http:', 'ws:').replace('S3cret-Pa55', '***')}/api/device/socket`);
  assert.is(connected.url, started.backend);
});

test('SIGTERM: readiness 503 at once, socket closed with 1001, port closed, exit 0', async () => {
  const device = await startDevice({
    SERIAL_PATH: pty.devicePath,
    BACKEND_URL: backend.url,
    SHUTDOWN_DELAY_MS: '2000',
  });
  await ready(device);
  device.signal('SIGTERM');
  // Seen while the port still answers, so during the drain delay: the flip comes first.
  await waitFor(
    async () => {
      const res = await fetch(`${device.url}/api/ready`);
      const body = await res.json();
      return res.status === 503 && body.status === 'shutting_down';
    },
    { timeout: 10_000, interval: 10, what: 'readiness shutting_down during the drain delay' },
  );
  assert.is((await fetch(`${device.url}/api/health`)).status, 200, 'still alive and answering during the delay');
  assert.is(await device.waitExit(8000), 0);

  // The backend logs the close once its device thread has handled it: not always before the device has exited.
  const disconnected = () => jsonLines(backend).filter((l) => l.msg === 'device disconnected');
  await waitFor(() => disconnected().length > 0, { timeout: 5000, what: "the backend's 'device disconnected' line" });
  const closes = disconnected();
  assert.is(closes.length, 1);
  assert.is(closes[0]!.code, 1001);
  const messages = jsonLines(device).map((l) => l.msg);
  assert.ok(messages.includes('readiness: serial is disconnected'), 'the port was closed');
  assert.is(messages.at(-1), 'shutdown complete');
  // The port is free again: a second device can open it straight away.
  const next = await startDevice({ SERIAL_PATH: pty.devicePath, BACKEND_URL: backend.url });
  await ready(next);
});

test.run();
