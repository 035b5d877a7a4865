// Real serial I/O end to end: socat pty → device service process → real backend process. A port missing at start
// shows in the device's /api/ready, and lines arrive in order. The pty vanishing and returning is
// device/serial/serial-link.test.ts's (the link) and test/faults/device-serial-link.fault.ts's (readiness, its bounds).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { waitFor } from './support/deadline.ts';
import { startMongoStandin, type MongoStandin } from '../dev/mongo-standin/server.ts';
import { ptyDir, removePtyDir, startPtyPair, type PtyPair } from './support/pty-pair.ts';
import { watchReadiness, type ReadinessWatch } from './support/readiness-watch.ts';
import { jsonLines, startBackend, startDevice, storedReadings } from './support/device-services.ts';

const test = suite('device serial (socat pty)');
let mongo: MongoStandin;
let dir: string;
let pty: PtyPair;
let backend: Service;
let device: Service;
let watch: ReadinessWatch;
const written: string[] = [];

test.before(async () => {
  mongo = await startMongoStandin();
  backend = await startBackend(mongo.url);
  dir = ptyDir();
});

test.after(async () => {
  await watch?.stop();
  await stopAll();
  await mongo?.close();
  removePtyDir(dir);
});

const serialIs = (state: string) => (o: { checks: Record<string, string> }) => o.checks.serial === state;

async function writeAndExpectStored(prefix: string, count: number, crlf = false) {
  const lines = Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}`);
  written.push(...lines);
  pty.write(lines.map((line) => line + (crlf ? '\r\n' : '\n')).join(''));
  await waitFor(() => storedReadings(backend).length >= written.length, {
    timeout: 15_000,
    what: `${written.length} stored`,
  });
  assert.equal(
    storedReadings(backend).map((r) => r.value),
    written,
  );
}

test('a port that is missing at start: running, not ready (serial disconnected), opened once it appears', async () => {
  device = await startDevice({ SERIAL_PATH: `${dir}/device`, BACKEND_URL: backend.url });
  watch = watchReadiness(device.url);
  const waiting = await watch.until((o) => o.checks.backend === 'connected', {
    since: 0,
    timeout: 15_000,
    what: 'backend connected',
  });
  assert.is(waiting.status, 503);
  assert.is(waiting.checks.serial, 'disconnected');
  assert.is((await fetch(`${device.url}/api/health`)).status, 200, 'alive while not ready');
  const warnings = jsonLines(device).filter((l) => l.msg.includes('unavailable'));
  assert.ok(
    warnings.some((l) => l.level === 40 && /no such file/i.test(l.reason)),
    'the missing port is a warning naming why',
  );

  const createdAt = Date.now();
  pty = await startPtyPair(dir);
  const up = await watch.until(serialIs('connected'), { since: createdAt, timeout: 15_000, what: 'serial connected' });
  assert.is(up.status, 200);
});

test('lines written on the far end arrive at the backend in order (LF and CRLF)', async () => {
  await writeAndExpectStored('reading', 30);
  await writeAndExpectStored('crlf reading', 10, true);
});

test.run();
