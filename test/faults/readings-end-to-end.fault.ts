// Fault: every line counted, end to end. A real device service reads a socat pty that gets a line every 25 ms for
// the whole run and sends to a real backend, which stores into the stand-in (a process) through a TCP proxy. In
// turn, then overlapping: the database hung (SIGSTOP); the backend SIGKILLed and restarted, also while the database
// hangs; the backend ↔ database link cut; the device SIGKILLed and restarted on its spool while it holds
// unacknowledged readings. Afterwards every line written is in `readings` exactly once, each device session
// numbered 1, 2, 3 … in the order the lines were written, and the count written equals the count stored: the writer
// pauses while no device process runs (nothing would read the pty), so nothing is written then.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { jsonLines, storedInDatabase, type Stored } from '../support/device-services.ts';
import { sleep, waitFor } from '../support/deadline.ts';
import { stopAll } from '../support/spawn-process.ts';
import { countReadings, type ReadingCounts } from './support/stored-readings.ts';
import { spoolValues } from './support/spool-values.ts';
import { errorOutput } from './support/service-health.ts';
import { getJson, startReadingsRig, type ReadingsRig } from './support/readings-rig.ts';

const LINE_EVERY_MS = 25;
const HUNG_MS = 4000;
const CUT_MS = 4000;
/**
 * From a fault's end to the acknowledgement of every line read before it: the backend's database readiness is back
 * within 2 s and its writer retries at most 2 s apart, a write the fault left hanging is abandoned 6 s after it began
 * (backend/README.md), which is before the fault's end or soon after; a restarted backend is reconnected to within
 * 3 s (device/README.md). The margin is the fault suite's, for a shared 2-core machine.
 */
const RECOVERY_BOUND_MS = 5000;
const MARGIN = 1.6;
const DEVICE_ID = 'counted';

const test = suite('readings counted end to end');
let rig: ReadingsRig;
let proxy: TcpProxy;
/** Each fault's end, as the device's clock reads it (the same machine's): what was read before it, acked after. */
const recoveries: Array<{ what: string; at: number }> = [];
/** Lines written while no device process ran, and what each killed device held unacknowledged. */
let writtenWhileDown = 0;
const heldAtKill: number[] = [];
const foundAtStart: number[] = [];
let counts: ReadingCounts;
/** Time the writer ran, for the pace it kept (a loaded machine stretches its 25 ms timer). */
let writingMs = 0;
let writingSince: number | undefined;
const startWriting = () => {
  writingSince = performance.now();
  rig.writer.start(LINE_EVERY_MS);
};
const stopWriting = () => {
  rig.writer.stop();
  if (writingSince !== undefined) writingMs += performance.now() - writingSince;
  writingSince = undefined;
};
let stored: Stored[] = [];

const backend = () => rig.backend();
const device = () => rig.device();
const unacknowledged = async () => (await rig.readings()).unacknowledged;

async function killBackend() {
  backend().signal('SIGKILL');
  await backend().waitExit(5000);
}

const restartBackend = () => rig.startBackend(backend().port);

/** Pauses the writer, waits until the device has every line written in its spool, SIGKILLs it and restarts it. */
async function killAndRestartDevice() {
  stopWriting();
  const last = rig.writer.written.at(-1)!;
  await waitFor(() => spoolValues(rig.spoolDir).has(last), { timeout: 5000, what: `${last} in the device's spool` });
  heldAtKill.push(await unacknowledged());
  const writtenAtKill = rig.writer.written.length;
  device().signal('SIGKILL');
  await device().waitExit(5000);
  await rig.startDevice(device().port);
  const start = jsonLines(device()).find((line) => line.msg === 'device service listening');
  foundAtStart.push(start?.spool.unacknowledged);
  writtenWhileDown += rig.writer.written.length - writtenAtKill;
  startWriting();
}

/** Marks a fault's end and waits until the backlog it left is acknowledged (the exact figures come from the logs). */
async function recovered(what: string) {
  recoveries.push({ what, at: Date.now() });
  try {
    await waitFor(async () => (await unacknowledged()) < 10, {
      timeout: 30_000,
      interval: 50,
      what: `the device's backlog acknowledged after ${what}`,
    });
  } catch (error) {
    // What the backend says of itself, so that a miss names its side of the story.
    const ready = await getJson(`${backend().url}/api/ready`).catch((e: Error) => e.message);
    const warnings = jsonLines(backend())
      .filter((line) => line.level >= 40)
      .map((line) => line.msg);
    throw new Error(
      `${(error as Error).message}; backend /api/ready ${JSON.stringify(ready)}; ` +
        `its warnings: ${warnings.slice(-5).join(' | ') || 'none'}`,
    );
  }
}

test.before(async () => {
  rig = await startReadingsRig({
    deviceId: DEVICE_ID,
    prefix: 'line',
    // Through a proxy, so that a run can cut the backend's link to the database.
    mongoUri: async (db) => {
      proxy = await startTcpProxy(db.port);
      return `mongodb://127.0.0.1:${proxy.port}/app`;
    },
    deviceEnv: { LOG_LEVEL: 'debug' }, // one `readings acknowledged` line per ack: when each reading was known stored
  });
  await rig.startBackend();
  await rig.startDevice();
  await waitFor(async () => (await getJson(`${device().url}/api/ready`)).status === 'ready', {
    timeout: 10_000,
    what: 'device ready',
  });
  startWriting();
});

test.after(async () => {
  await rig?.stop();
  await proxy?.close();
  await stopAll();
});

test('faults in turn: database hung, backend killed, link cut, device killed holding readings', async () => {
  await sleep(1000);
  rig.db.signal('SIGSTOP');
  await sleep(HUNG_MS);
  rig.db.signal('SIGCONT');
  await recovered('database hung');

  await killBackend();
  await restartBackend();
  await recovered('backend killed');

  proxy.cut();
  await sleep(CUT_MS);
  proxy.heal();
  await recovered('link cut');

  rig.db.signal('SIGSTOP');
  await sleep(1500); // readings pile up unacknowledged
  await killAndRestartDevice();
  await sleep(1000);
  rig.db.signal('SIGCONT');
  await recovered('device killed (database hung)');
});

test('faults overlapping: backend killed while the database hangs; everything at once', async () => {
  rig.db.signal('SIGSTOP');
  await sleep(1500);
  await killBackend();
  await restartBackend(); // starts against a hung database
  await sleep(1500);
  rig.db.signal('SIGCONT');
  await recovered('backend killed (database hung)');

  rig.db.signal('SIGSTOP');
  await sleep(1000);
  proxy.cut();
  await killBackend();
  await killAndRestartDevice(); // against no backend: it keeps its readings and retries
  await restartBackend();
  rig.db.signal('SIGCONT'); // still cut off
  await sleep(1500);
  proxy.heal();
  await recovered('all at once (database hung, link cut, backend and device killed)');
});

test('every line written stored exactly once, in order per session; none written with no device', async () => {
  stopWriting();
  const written = rig.writer.written;
  await waitFor(async () => (await storedInDatabase(`mongodb://127.0.0.1:${rig.db.port}`)).length >= written.length, {
    timeout: 30_000,
    what: `${written.length} readings stored`,
  }).catch(() => {}); // countReadings below names what is missing
  await waitFor(async () => (await unacknowledged()) === 0, { timeout: 10_000, what: 'nothing left unacknowledged' });
  stored = await storedInDatabase(`mongodb://127.0.0.1:${rig.db.port}`, DEVICE_ID);
  counts = countReadings(stored, written);
  console.log(
    `    measured: readings written ${counts.written}, stored ${counts.stored}, duplicated ${counts.duplicated}, ` +
      `lost ${counts.lost}, written while no device process ran ${writtenWhileDown} ` +
      `(${((written.length / writingMs) * 1000).toFixed(0)} lines/s over ${(writingMs / 1000).toFixed(0)} s); ` +
      `${counts.sessions} device sessions; unacknowledged at each device kill ${heldAtKill.join(', ')}, ` +
      `found in the spool by the next start ${foundAtStart.join(', ')}`,
  );
  assert.equal(counts.problems, []);
  assert.is(counts.stored, counts.written - writtenWhileDown);
  assert.is(writtenWhileDown, 0);
  assert.is(counts.sessions, 3, 'one session per device process');
  assert.ok(
    heldAtKill.every((n) => n > 0),
    `each device was killed holding unacknowledged readings: ${heldAtKill.join(', ')}`,
  );
  assert.equal(foundAtStart, heldAtKill, 'each restart found what its predecessor held');
});

test(`every line read before a fault ended acknowledged within ${RECOVERY_BOUND_MS} ms × ${MARGIN} of its end`, () => {
  const acks = rig.devices
    .flatMap((d) => jsonLines(d))
    .filter((line) => line.msg === 'readings acknowledged')
    .map(({ time, session, seq }) => ({ time: time as number, session: session as string, seq: seq as number }))
    .sort((a, b) => a.time - b.time);
  /** When the device first logged an ack covering the reading (undefined: acked only by an unlogged one). */
  const ackedAt = (r: Stored) => acks.find((a) => a.session === r.session && a.seq >= r.seq)?.time;
  const latencies = stored.map((r) => ({ r, readAt: r.timestamp!.getTime(), ackAt: ackedAt(r) }));
  const unlogged = latencies.filter((l) => l.ackAt === undefined).length;
  const longest = latencies.reduce((a, b) => ((b.ackAt ?? 0) - b.readAt > (a.ackAt ?? 0) - a.readAt ? b : a));
  const after = recoveries.map(({ what, at }) => {
    const backlog = latencies.filter((l) => l.readAt < at && l.ackAt !== undefined && l.ackAt > at);
    const last = Math.max(0, ...backlog.map((l) => l.ackAt! - at));
    return { what, backlog: backlog.length, ms: last };
  });
  const during = recoveries.find((r) => r.at >= longest.readAt)?.what ?? 'no fault';
  console.log(
    `    measured: longest from a line being read to its ack: ${longest.ackAt! - longest.readAt} ms ` +
      `(${longest.r.value}, read before "${during}" ended); ` +
      `from each fault's end to the ack of every line read before it: ` +
      after.map((a) => `${a.what} ${a.ms} ms (${a.backlog} lines)`).join('; ') +
      (unlogged ? `; ${unlogged} readings acked by an ack the killed device did not log` : ''),
  );
  assert.ok(
    after.every((a) => a.backlog > 0),
    'every fault left a backlog',
  );
  const slow = after.filter((a) => a.ms > RECOVERY_BOUND_MS * MARGIN);
  assert.equal(slow, [], `acknowledged later than ${RECOVERY_BOUND_MS * MARGIN} ms after the fault ended`);
});

test('the device and the last backend run on, with no error-level log line', () => {
  for (const service of [device(), backend()]) assert.is(service.child.exitCode, null);
  assert.equal(errorOutput(device()), []);
  assert.equal(errorOutput(backend()), []);
});

test.run();
