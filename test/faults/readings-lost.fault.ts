// Fault: every number a device gives a reading ends stored once or declared lost, and nothing wedges. A real device
// (1 MiB spool) reads a socat pty and sends to a real backend on the stand-in (a process). Three paths: the backend
// killed while far more lines arrive than the spool holds (the oldest are evicted), the device killed and restarted
// in the middle of that outage, then the spool directory replaced by a file (writes fail with ENOTDIR) and freed
// again, once while lines keep coming and once at the very end of a session (freed, then the device stopped and
// restarted before another line is written, the backend away meanwhile: only the spool's lost record tells). After
// each recovery the device's backlog reaches 0 within RECOVERY_BOUND_MS, and at the end, per session, the stored
// seqs and the declared lost ranges together are 1..last, the lost counted once, and the sessions' last seqs add up
// to the lines written.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync, writeFileSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import { sleep, waitFor } from '../support/deadline.ts';
import { stopAll } from '../support/spawn-process.ts';
import { getJson, startReadingsRig, type ReadingsRig } from './support/readings-rig.ts';
import { spoolValues } from './support/spool-values.ts';

const DEVICE_ID = 'lossy';
const SPOOL_BYTES = 1024 * 1024;
/** Lines written during the outage: a record takes about 110 bytes, so this is about twice what the spool holds. */
const OUTAGE_LINES = 18_000;
const UNWRITTEN_LINES = 40;
/** Lines the spool could not write just before the device stops. */
const TAIL_LINES = 7;
/**
 * From the backend's return (or the spool freed) to a backlog of 0: the device reconnects within its 2 s backoff,
 * declares its losses first, and a full spool (about 9,000 readings) drains at frame pace in well under a second of
 * database time. The margin is the fault suite's, for a shared 2-core machine.
 */
const RECOVERY_BOUND_MS = 5000;
const MARGIN = 1.6;

const test = suite('readings lost, declared and acknowledged past');
let rig: ReadingsRig;
const backend = () => rig.backend();
const device = () => rig.device();
const readings = () => rig.readings();

/** Writes `count` lines in bursts the device keeps up with, then waits until the last is read. */
async function write(count: number) {
  for (let left = count; left > 0; left -= 500) {
    rig.writer.burst(Math.min(500, left));
    await sleep(20);
  }
  const last = rig.writer.written.at(-1)!;
  const { unwritten } = await readings();
  // A line the spool could not write is not in it: then the count of unwritten ones says it was read.
  await waitFor(async () => spoolValues(rig.spoolDir).has(last) || (await readings()).unwritten > unwritten, {
    timeout: 20_000,
    what: `${last} read by the device`,
  });
}

/** Replaces the spool directory by a file and writes `count` lines, which the device counts unwritten. */
async function spoolReplacedByFile(count: number) {
  rmSync(rig.spoolDir, { recursive: true });
  writeFileSync(rig.spoolDir, 'a file where the spool directory was');
  const before = (await readings()).unwritten;
  for (let i = 0; i < count; i++) rig.writer.burst(1);
  await waitFor(async () => (await readings()).unwritten === before + count, {
    timeout: 10_000,
    what: `${count} lines counted unwritten`,
  });
  assert.is((await getJson(`${device().url}/api/ready`)).checks.spool, 'unwritable');
}

/** Waits until the device holds nothing unacknowledged and declares nothing; returns how long that took. */
async function drained(what: string): Promise<number> {
  const since = performance.now();
  await waitFor(
    async () => {
      const { unacknowledged, declaredLost } = await readings();
      return unacknowledged === 0 && declaredLost === 0;
    },
    { timeout: 30_000, interval: 50, what: `the device's backlog acknowledged after ${what}` },
  );
  return performance.now() - since;
}

test.before(async () => {
  rig = await startReadingsRig({
    deviceId: DEVICE_ID,
    prefix: 'lost',
    deviceEnv: { DEVICE_SPOOL_MAX_BYTES: String(SPOOL_BYTES) },
  });
  await rig.startBackend();
  await rig.startDevice();
});

test.after(async () => {
  await rig?.stop();
  await stopAll();
});

test('an outage longer than the spool, with a device restart in the middle: drained, not wedged', async () => {
  await write(500);
  await drained('the first lines');
  backend().signal('SIGKILL');
  await backend().waitExit(5000);
  await write(OUTAGE_LINES / 2);
  assert.ok((await readings()).dropped > 0, 'the spool evicted its oldest readings');
  device().signal('SIGKILL');
  await device().waitExit(5000);
  await rig.startDevice(device().port);
  await write(OUTAGE_LINES / 2);
  await rig.startBackend(backend().port);
  const took = await drained('the backend came back');
  console.log(`    drained ${OUTAGE_LINES} lines' outage in ${Math.round(took)} ms (bound ${RECOVERY_BOUND_MS} ms)`);
  assert.ok(took < RECOVERY_BOUND_MS * MARGIN, `${Math.round(took)} ms to 0 unacknowledged`);
});

test('a spool write that fails (the directory replaced by a file), then succeeds: drained, not wedged', async () => {
  await spoolReplacedByFile(UNWRITTEN_LINES);
  rmSync(rig.spoolDir);
  await write(100);
  const took = await drained('the spool was freed');
  assert.ok(took < RECOVERY_BOUND_MS * MARGIN, `${Math.round(took)} ms to 0 unacknowledged`);
});

test('lines never written at the end of a session (the device stopped first): declared after the restart', async () => {
  // The backend is away, so the socket cannot declare them before the device stops.
  backend().signal('SIGKILL');
  await backend().waitExit(5000);
  await spoolReplacedByFile(TAIL_LINES);
  rmSync(rig.spoolDir); // free again, but no line comes before the device stops
  device().signal('SIGTERM');
  assert.is(await device().waitExit(10_000), 0);
  await rig.startBackend(backend().port);
  await rig.startDevice(device().port);
  const took = await drained('the restart after an unwritten end');
  assert.ok(took < RECOVERY_BOUND_MS * MARGIN, `${Math.round(took)} ms to 0 unacknowledged`);
});

test('every seq of every session is stored or declared lost, and the lost are counted once', async () => {
  const client = new MongoClient(rig.db.uri, { serverSelectionTimeoutMS: 2000 });
  try {
    const app = client.db();
    const stored = await app.collection('readings').find({ deviceId: DEVICE_ID }).toArray();
    const losses = await app.collection('losses').find({ deviceId: DEVICE_ID }).toArray();
    const summary = await app.collection('devices').findOne({ _id: DEVICE_ID as never });
    const sessions = new Map<string, { stored: Set<number>; lost: Set<number> }>();
    const of = (s: string) => sessions.get(s) ?? sessions.set(s, { stored: new Set(), lost: new Set() }).get(s)!;
    for (const { session, seq } of stored) of(session).stored.add(seq);
    let counted = 0;
    let evicted = 0;
    let unwritten = 0;
    for (const { session, from, to, reason, lost } of losses) {
      counted += lost as number;
      if (reason === 'evicted') evicted += lost as number;
      if (reason === 'unwritten') unwritten += lost as number;
      for (let seq = from as number; seq <= (to as number); seq++) {
        if (!of(session).stored.has(seq)) of(session).lost.add(seq);
      }
    }
    // The third session (after the unwritten end) reads nothing: it only declares the second's last lines.
    assert.is(sessions.size, 2, 'two device sessions with readings');
    let lastSeqs = 0;
    let lostSeqs = 0;
    for (const [session, { stored: kept, lost }] of sessions) {
      const last = Math.max(...kept, ...lost);
      const missing = Array.from({ length: last }, (_, i) => i + 1).filter((seq) => !kept.has(seq) && !lost.has(seq));
      assert.equal(missing.slice(0, 10), [], `session ${session}: seqs neither stored nor declared lost`);
      lastSeqs += last;
      lostSeqs += lost.size;
    }
    assert.is(stored.length + lostSeqs, rig.writer.written.length, 'stored + declared lost = lines read');
    assert.is(lastSeqs, rig.writer.written.length, 'one seq per line read');
    assert.is(counted, lostSeqs, 'each lost reading counted once');
    assert.is(summary?.readingsLost, counted, 'the device summary counts them');
    assert.ok(evicted > OUTAGE_LINES / 4, `${evicted} evicted`);
    assert.is(unwritten, UNWRITTEN_LINES + TAIL_LINES);
    console.log(
      `    ${rig.writer.written.length} lines: ${stored.length} stored, ${evicted} evicted, ${unwritten} unwritten`,
    );
  } finally {
    await client.close();
  }
});

test.run();
