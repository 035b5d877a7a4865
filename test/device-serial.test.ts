// Real serial I/O end to end: socat pty → device service process → real backend process. The pty vanishing
// and returning shows in the device's /api/ready within the bounds, and lines keep arriving in order.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { sleep, waitFor } from './support/deadline.ts';
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
    timeout: 5000,
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
    timeout: 5000,
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
  const up = await watch.until(serialIs('connected'), { since: createdAt, timeout: 5000, what: 'serial connected' });
  assert.ok(up.at - createdAt < 3000, `connected ${up.at - createdAt} ms after the pty appeared`);
  assert.is(up.status, 200);
});

test('lines written on the far end arrive at the backend in order (LF and CRLF)', async () => {
  await writeAndExpectStored('reading', 30);
  await writeAndExpectStored('crlf reading', 10, true);
});

for (const [how, kill] of [
  ['SIGTERM (links removed)', () => pty.stop()],
  [
    'SIGKILL (links left dangling)',
    async () => {
      pty.socat.signal('SIGKILL');
      await pty.socat.waitExit(2000);
      await pty.stop();
    },
  ],
] as const) {
  test(`socat killed by ${how} → serial disconnected within 1 s; recreated → connected within 3 s`, async () => {
    const killedAt = Date.now();
    await kill();
    const down = await watch.until(serialIs('disconnected'), {
      since: killedAt,
      timeout: 5000,
      what: 'serial disconnected',
    });
    const downMs = down.at - killedAt;
    assert.ok(downMs < 1000, `disconnected ${downMs} ms after socat was killed`);
    assert.is(down.status, 503);
    assert.is(down.checks.backend, 'connected');

    await sleep(3000); // long enough for the retry backoff to reach its cap
    assert.is(watch.latest()?.checks.serial, 'disconnected');
    const recreatedAt = Date.now();
    pty = await startPtyPair(dir);
    const up = await watch.until(serialIs('connected'), {
      since: recreatedAt,
      timeout: 6000,
      what: 'serial reconnected',
    });
    const upMs = up.at - recreatedAt;
    assert.ok(upMs < 3000, `connected ${upMs} ms after the pty was recreated`);
    assert.is(up.status, 200);
    await writeAndExpectStored(`after ${how}`, 5);
    console.log(
      `  measured (device process, socat ${how.split(' ')[0]}): ` +
        `killed → disconnected in ${downMs} ms; recreated → connected in ${upMs} ms`,
    );
  });
}

test.run();
