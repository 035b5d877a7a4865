// A real backend process (on the MongoDB stand-in) is killed and restarted under a running device service reading
// a socat pty: the device's readiness follows, and every line still arrives at the backend in order, once. Then
// the device itself is SIGKILLed holding unacknowledged readings: the next device process sends them from its
// spool, before its own. How fast readiness follows, and a backend that hangs instead, are the fault suite's
// (test/faults/device-backend-link.fault.ts); the link's own reactions are device/link/backend-link.test.ts's.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { waitFor } from './support/deadline.ts';
import { startDeviceStack, type DeviceStack } from './support/device-stack.ts';
import { watchReadiness, type ReadinessWatch } from './support/readiness-watch.ts';
import { jsonLines, storedInDatabase, storedReadings } from './support/device-services.ts';

const test = suite('device ↔ real backend');
let stack: DeviceStack;
let device: Service;
let watch: ReadinessWatch;
const written: string[] = [];
const backend = () => stack.backend();

test.before(async () => {
  stack = await startDeviceStack({ ready: false }); // the first test watches it become ready
  device = stack.device;
  watch = watchReadiness(device.url);
});

test.after(async () => {
  await watch?.stop();
  await stack?.stop();
  await stopAll();
});

function writeLines(prefix: string, count: number) {
  const lines = Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);
  written.push(...lines);
  stack.pty.write(lines.map((line) => `${line}\n`).join(''));
}

/** What the database holds, in the order it was inserted: what the system as a whole has stored. */
const allStored = () => storedInDatabase(stack.mongo.url);

/** The device's backlog, as its liveness body reports it. */
const backlog = async (service: Service) =>
  ((await (await fetch(`${service.url}/api/health`)).json()) as { readings: { unacknowledged: number } }).readings;

/**
 * Waits until the database holds every line and then the device nothing unacknowledged, then checks them. In this
 * order: a device that has not yet read the lines from its pty holds nothing either, and a backlog read before the
 * database's count once let a test end with 20 readings stored but their acks still on the way.
 */
async function expectAllWrittenStoredOnce(timeout = 15_000) {
  await waitFor(
    async () => (await allStored()).length >= written.length && (await backlog(device)).unacknowledged === 0,
    { timeout, what: `${written.length} readings stored and acknowledged` },
  );
  const stored = await allStored();
  assert.equal(
    stored.map((r) => r.value),
    written,
    'every line, in order, once',
  );
  assert.equal(
    stored.map((r) => r.seq),
    written.map((_, i) => i + 1),
    'sequence numbers 1..N without gaps or repeats',
  );
  assert.is(new Set(stored.map((r) => r.session)).size, 1, 'one device session');
}

/** The device's own log line for a change of its backend check, after the `since`-th line. */
const deviceLogged = (state: string, since: number) =>
  waitFor(
    () =>
      jsonLines(device)
        .slice(since)
        .find((l) => l.msg === `readiness: backend is ${state}`),
    {
      timeout: 15_000,
      what: `the device logging "backend is ${state}"`,
    },
  );
const backendIs = (state: string) => (o: { checks: Record<string, string> }) => o.checks.backend === state;

test('ready (200) once the pty and the backend are connected; lines arrive in order', async () => {
  const ready = await watch.until((o) => o.status === 200, { since: 0, timeout: 15_000, what: 'device ready' });
  assert.equal(ready.checks, { serial: 'connected', backend: 'connected', spool: 'writable', acks: 'ok' });
  writeLines('first', 20);
  await expectAllWrittenStoredOnce();
});

test('backend killed: device not ready (backend disconnected); back: ready; the gap arrives in order', async () => {
  const linesBefore = jsonLines(device).length;
  const killedAt = Date.now();
  backend().signal('SIGKILL');
  const down = await watch.until(backendIs('disconnected'), {
    since: killedAt,
    timeout: 15_000,
    what: 'backend disconnected',
  });
  assert.is(down.status, 503);
  assert.is(down.checks.serial, 'connected');
  assert.is((await deviceLogged('disconnected', linesBefore)).level, 40);

  writeLines('while-killed', 10);
  await waitFor(async () => (await backlog(device)).unacknowledged === 10, { what: '10 readings held while away' });
  assert.is(await backend().waitExit(5000), 'SIGKILL');
  const restartedAt = Date.now();
  await stack.restartBackend();
  const up = await watch.until(backendIs('connected'), {
    since: restartedAt,
    timeout: 15_000,
    what: 'backend reconnected',
  });
  assert.is(up.status, 200);

  writeLines('after-restart', 5);
  await expectAllWrittenStoredOnce();
  await waitFor(() => storedReadings(backend()).some((r) => r.value === 'while-killed-1'), {
    what: 'the gap stored by the new backend',
  });
});

test('device SIGKILLed with readings unacknowledged: the next process sends them first; each stored once', async () => {
  await watch.until((o) => o.status === 200, { since: 0, timeout: 15_000, what: 'device ready' });
  const oldSession = (await allStored()).at(-1)!.session;
  const held = await backlog(device);
  assert.is(held.unacknowledged, 0, 'nothing held before');
  backend().signal('SIGSTOP'); // nothing is acknowledged from here on
  writeLines('held', 5);
  await waitFor(async () => (await backlog(device)).unacknowledged === 5, { what: '5 readings held' });
  device.signal('SIGKILL');
  assert.is(await device.waitExit(5000), 'SIGKILL');

  device = await stack.restartDevice(); // same port (the watch follows it) and the same spool
  const started = await waitFor(() => jsonLines(device).find((l) => l.msg === 'device service listening'), {
    what: 'the listening line',
  });
  assert.is(started.spool.unacknowledged, 5, 'the spool as the new process found it');
  writeLines('after-restart', 3); // while the backend is still stopped: queued behind the held ones
  await waitFor(async () => (await backlog(device)).unacknowledged === 8, { what: '8 readings held' });
  backend().signal('SIGCONT');
  await waitFor(async () => (await backlog(device)).unacknowledged === 0, {
    timeout: 20_000,
    what: 'all acknowledged',
  });
  // The database, not the logs: a backend whose socket closes during a write (the old device's, here) stores the
  // readings without logging them, and the resend finds them stored already.
  const stored = await storedInDatabase(stack.mongo.url);
  assert.equal(
    stored.map((r) => r.value),
    written,
    'every line, in order, once',
  );
  const last8 = stored.slice(-8);
  assert.ok(
    last8.slice(0, 5).every((r) => r.session === oldSession),
    'the held ones under the old session',
  );
  const newSession = last8[5]!.session;
  assert.ok(newSession !== oldSession, 'a new session after the restart');
  assert.equal(
    last8.slice(5).map((r) => [r.session, r.seq]),
    [
      [newSession, 1],
      [newSession, 2],
      [newSession, 3],
    ],
  );
});

test.run();
