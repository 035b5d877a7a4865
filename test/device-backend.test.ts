// A real backend process (on the MongoDB stand-in) is killed, restarted and SIGSTOPped under a running device
// service reading a socat pty: the device's readiness follows within the bounds, and every line still arrives
// at the backend in order, once. Then the device itself is SIGKILLed holding unacknowledged readings: the next
// device process sends them from its spool, before its own.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { sleep, waitFor } from './support/deadline.ts';
import { startDeviceStack, type DeviceStack } from './support/device-stack.ts';
import { watchReadiness, type ReadinessWatch } from './support/readiness-watch.ts';
import { jsonLines, logTime, storedReadings } from './support/device-services.ts';

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

/** Every backend's stored readings, concatenated: what the system as a whole has stored. */
const allStored = () => stack.backends.flatMap(storedReadings);

async function expectAllWrittenStoredOnce(timeout = 5000) {
  await waitFor(() => allStored().length >= written.length, { timeout, what: `${written.length} readings stored` });
  await sleep(300); // a duplicate would show up just after
  const stored = allStored();
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

const since = () => Date.now();

/** The device's backlog, as its liveness body reports it. */
const backlog = async (service: Service) =>
  ((await (await fetch(`${service.url}/api/health`)).json()) as { readings: { unacknowledged: number } }).readings;

/** When the device itself flipped the check (its log line's time): the flip without the HTTP polling lag. */
async function flipLoggedAt(state: string, after: number): Promise<number> {
  // The line may still be in the pipe when /api/ready already shows the state.
  const line = await waitFor(
    () => jsonLines(device).find((l) => l.msg === `readiness: backend is ${state}` && l.time >= after),
    {
      timeout: 3000,
      what: `the device logging "backend is ${state}"`,
    },
  );
  return line.time as number;
}
const backendIs = (state: string) => (o: { checks: Record<string, string> }) => o.checks.backend === state;

test('ready (200) once the pty and the backend are connected; lines arrive in order', async () => {
  const ready = await watch.until((o) => o.status === 200, { since: 0, timeout: 5000, what: 'device ready' });
  assert.equal(ready.checks, { serial: 'connected', backend: 'connected' });
  writeLines('first', 20);
  await expectAllWrittenStoredOnce();
});

test(
  'backend killed → disconnected within 250 ms; ' + 'back → connected within 3 s; the gap arrives in order, once',
  async () => {
    await sleep(300); // let the last acks land, so nothing is in flight at the kill
    const killedAt = since();
    backend().signal('SIGKILL');
    const down = await watch.until(backendIs('disconnected'), {
      since: killedAt,
      timeout: 5000,
      what: 'backend disconnected',
    });
    const downMs = down.at - killedAt;
    const flipMs = (await flipLoggedAt('disconnected', killedAt)) - killedAt;
    assert.is(down.status, 503);
    assert.is(down.checks.serial, 'connected');
    assert.ok(flipMs < 250, `the device flipped ${flipMs} ms after SIGKILL`);
    // Seen over HTTP, polling adds lag on a busy machine; the broken alternative (heartbeat only) takes seconds.
    assert.ok(downMs < 500, `/api/ready showed it ${downMs} ms after SIGKILL`);

    writeLines('while-killed', 10);
    await sleep(3000); // away long enough for the reconnect backoff to reach its cap
    assert.is(watch.latest()?.checks.backend, 'disconnected');
    await backend().waitExit(2000);
    await stack.restartBackend();
    const listeningAt = logTime(backend(), 'backend listening')!;
    assert.type(listeningAt, 'number');
    const up = await watch.until(backendIs('connected'), {
      since: listeningAt,
      timeout: 6000,
      what: 'backend reconnected',
    });
    const upMs = up.at - listeningAt;
    assert.ok(upMs < 3000, `connected ${upMs} ms after the backend listened`);
    assert.is(up.status, 200);

    writeLines('after-restart', 5);
    await expectAllWrittenStoredOnce();
    assert.ok(
      storedReadings(backend()).some((r) => r.value === 'while-killed-1'),
      'the gap went to the new backend',
    );
    console.log(
      `  measured (real backend): SIGKILL → disconnected in ${flipMs} ms ` +
        `(seen on /api/ready after ${downMs} ms); listening → connected in ${upMs} ms`,
    );
  },
);

test(
  'backend SIGSTOPped → disconnected within 5 s; ' + 'SIGCONT → connected within 3 s; nothing lost or doubled',
  async () => {
    await watch.until((o) => o.status === 200, { since: 0, timeout: 5000, what: 'device ready' });
    await sleep(1500); // a few heartbeats answered first
    const stoppedAt = since();
    backend().signal('SIGSTOP');
    writeLines('while-stopped', 5); // sent into a socket nobody reads
    const down = await watch.until(backendIs('disconnected'), {
      since: stoppedAt,
      timeout: 10_000,
      what: 'silent backend noticed',
    });
    const downMs = down.at - stoppedAt;
    const flipMs = (await flipLoggedAt('disconnected', stoppedAt)) - stoppedAt;
    assert.ok(downMs < 5000, `disconnected ${downMs} ms after SIGSTOP`);
    assert.ok(downMs > 1500, `disconnected after only ${downMs} ms: a heartbeat miss needs 2.5 s of silence`);
    writeLines('still-stopped', 5);
    await sleep(2500);

    const continuedAt = since();
    backend().signal('SIGCONT');
    const up = await watch.until(backendIs('connected'), {
      since: continuedAt,
      timeout: 6000,
      what: 'backend reconnected after SIGCONT',
    });
    const upMs = up.at - continuedAt;
    assert.ok(upMs < 3000, `connected ${upMs} ms after SIGCONT`);
    await expectAllWrittenStoredOnce();
    console.log(
      `  measured (real backend): SIGSTOP → disconnected in ${flipMs} ms ` +
        `(seen on /api/ready after ${downMs} ms); SIGCONT → connected in ${upMs} ms`,
    );
  },
);

test('device SIGKILLed with readings unacknowledged: the next process sends them first; each stored once', async () => {
  await watch.until((o) => o.status === 200, { since: 0, timeout: 6000, what: 'device ready' });
  const oldSession = storedReadings(backend()).at(-1)!.session;
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
    timeout: 10_000,
    what: 'all acknowledged',
  });

  const stored = allStored();
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
