// The per-socket writer with a store whose every insert and lookup the test settles by hand: batching while a write
// is in flight, cumulative acks per session only over contiguous readings, refusals, retries, the held bound, close().
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AckMessage, Reading } from '../../lib/device-protocol.ts';
import { createSummedWarning } from '../../lib/summed-warning.ts';
import { createLogSink } from '../../test/support/log-sink.ts';
import { LossRefusedError } from '../readings/loss-refusal.ts';
import { waitFor } from '../../test/support/deadline.ts';
import { createHeldBudget } from './held-budget.ts';
import { createDeviceLanes } from './device-lanes.ts';
import { DatabaseUnavailableError } from '../database/database-unavailable-error.ts';
import type { ReadingDocument } from '../readings/reading-document.ts';
import type { InsertResult } from '../readings/reading-store.ts';
import { createReadingWriter, type ReadingWriterOptions } from './reading-writer.ts';

interface Lookup {
  at: string;
  resolve(stored: boolean): void;
  reject(error: Error): void;
}

interface Call {
  docs: ReadingDocument[];
  resolve(result?: Partial<InsertResult>): void;
  reject(error: Error): void;
}

function setup(options: Partial<ReadingWriterOptions> = {}) {
  const sink = createLogSink('debug', 'backend');
  const calls: Call[] = [];
  const lookups: Lookup[] = [];
  const refusals: string[] = [];
  const refusalsFail = { now: false };
  const losses: string[] = [];
  const lossesFail = { now: false, refuse: false };
  const acks: AckMessage[] = [];
  const overflows: string[] = [];
  const budget = options.budget ?? createHeldBudget(1024 * 1024);
  const writer = createReadingWriter({
    deviceId: 'dev-1',
    store: {
      insert: (docs) =>
        new Promise((resolve, reject) =>
          calls.push({
            docs,
            resolve: (result = {}) => resolve({ inserted: docs.length, duplicates: [], ...result }),
            reject,
          }),
        ),
      settled: (deviceId, session, seq) =>
        new Promise((resolve, reject) => lookups.push({ at: `${deviceId}/${session}:${seq}`, resolve, reject })),
      refusedThrough: async (deviceId, session, seq) => {
        refusals.push(`${deviceId}/${session}:${seq}`);
        if (refusalsFail.now) throw new DatabaseUnavailableError('timeout', 'the refusal mark timed out');
      },
      recordLosses: async (deviceId, session, reason, ranges) => {
        losses.push(`${deviceId}/${session}:${reason} ${JSON.stringify(ranges)}`);
        if (lossesFail.now) throw new DatabaseUnavailableError('timeout', 'the lost ranges timed out');
        if (lossesFail.refuse) throw new LossRefusedError('session s1 would keep 4 lost ranges, over the 3 kept');
        return ranges.reduce((sum, [from, to]) => sum + to - from + 1, 0);
      },
    },
    send: (ack) => acks.push(ack),
    overflow: (why) => overflows.push(why),
    warnings: {
      refused: createSummedWarning(sink.log, (n) => `refused ${n}`),
      failed: createSummedWarning(sink.log, (n) => `failed ${n}`),
      dropped: createSummedWarning(sink.log, (n) => `dropped ${n}`),
      lossRefused: createSummedWarning(sink.log, (n) => `loss refused ${n}`),
    },
    log: sink.log,
    budget,
    backoff: { initialMs: 5, maxMs: 20 },
    ...options,
  });
  return { writer, calls, lookups, refusals, refusalsFail, losses, lossesFail, acks, overflows, sink, budget };
}

const at = (seq: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString();
const readings = (...seqs: number[]): Reading[] => seqs.map((seq) => ({ seq, timestamp: at(seq), value: `v${seq}` }));
const seqs = (call: Call | undefined) => call?.docs.map((d) => `${d.session}:${d.seq}`);
const tick = () => new Promise((resolve) => setImmediate(resolve));
// What one of these readings costs the held budget: the writer's overhead, device id, session and value (`s1`, `v1`).
const READING_BYTES = 200 + 'dev-1'.length + 's1'.length + 'v1'.length;

test('one write in flight; what arrives meanwhile goes into the next insert together, acked after it', async () => {
  const { writer, calls, acks, budget } = setup();
  writer.accept('s1', readings(1, 2));
  assert.is(calls.length, 1);
  writer.accept('s1', readings(3));
  writer.accept('s1', readings(4, 5));
  writer.accept('s2', readings(1));
  assert.is(calls.length, 1, 'no second write while the first is in flight');
  assert.equal(acks, [], 'nothing acked before the database acknowledged');
  assert.is(budget.held, 6 * READING_BYTES, 'six readings held');
  calls[0]!.resolve();
  await tick();
  assert.equal(acks, [{ type: 'ack', session: 's1', seq: 2 }]);
  assert.equal(seqs(calls[1]), ['s1:3', 's1:4', 's1:5', 's2:1']);
  calls[1]!.resolve();
  await tick();
  assert.equal(acks.slice(1), [
    { type: 'ack', session: 's1', seq: 5 },
    { type: 'ack', session: 's2', seq: 1 },
  ]);
  assert.is(budget.held, 0, 'none held');
});

test("one device's sockets take turns at the database; another device's writer does not wait", async () => {
  const lanes = createDeviceLanes();
  const [first, second] = [setup({ lanes }), setup({ lanes })];
  const other = setup({ lanes, deviceId: 'dev-2' });
  first.writer.accept('s1', readings(1));
  second.writer.accept('s2', readings(1));
  second.writer.accept('s2', readings(2));
  other.writer.accept('s3', readings(1));
  await tick();
  assert.is(first.calls.length, 1);
  assert.is(second.calls.length, 0, 'the same device: waits for the first write');
  assert.is(other.calls.length, 1, 'another device writes at once');
  first.calls[0]!.resolve();
  await waitFor(() => second.calls.length === 1, { timeout: 2000, what: "the second socket's turn" });
  assert.equal(seqs(second.calls[0]), ['s2:1', 's2:2'], 'what waited goes in one batch');
  second.calls[0]!.resolve();
  await waitFor(() => second.acks.length === 1, { timeout: 2000, what: "the second socket's ack" });
  assert.equal(second.acks, [{ type: 'ack', session: 's2', seq: 2 }]);
  assert.is(lanes.busy, 1, 'only the other device still writes');
});

test('waitingSince: the oldest reading queued behind a write in flight; not while a failed write waits', async () => {
  const { writer, calls } = setup({ backoff: { initialMs: 60_000, maxMs: 60_000 } });
  writer.accept('s1', readings(1));
  assert.is(writer.waitingSince(), undefined, 'in flight at once: nothing waits');
  const before = performance.now();
  writer.accept('s1', readings(2));
  writer.accept('s1', readings(3));
  const since = writer.waitingSince();
  assert.ok(since !== undefined && since >= before && since <= performance.now(), `queued at ${since}`);
  calls[0]!.reject(new DatabaseUnavailableError('timeout', 'the database did not answer within 6000 ms'));
  await tick();
  assert.is(writer.waitingSince(), undefined, "backing off: the database's trouble, not the path's");
  writer.close();
});

test('past an evicted gap: stored, not acked (the wedge); the declared range recorded, then acked past', async () => {
  const lost: string[] = [];
  const { writer, calls, acks, losses, lossesFail, lookups } = setup({
    onLost: (reason, n) => lost.push(`${reason} ${n}`),
  });
  writer.accept('s1', readings(4, 5));
  lookups[0]!.resolve(false); // seq 3 is not stored: the device's spool dropped 1..3
  await tick();
  calls[0]!.resolve();
  await tick();
  assert.equal(acks, [], 'stored past a gap: not acknowledged');
  lossesFail.now = true;
  writer.declare('s1', 'evicted', [[1, 3]]);
  // The record is made when its turn comes, not within one tick: waited for, so that it is a failing one (tried
  // again every 5 to 20 ms while it fails, so how many fail before the switch below is not fixed).
  await waitFor(() => losses.length >= 1, { timeout: 2000, what: 'the first record of the declared range' });
  assert.equal(acks, [], 'a failed record is no ack');
  lossesFail.now = false;
  await waitFor(() => acks.length > 0, { timeout: 3000, what: 'the ack after the record is tried again' });
  assert.equal(acks, [{ type: 'ack', session: 's1', seq: 5 }]);
  assert.ok(losses.length >= 2, `tried again after the failure: ${losses.length} tries`);
  assert.equal(new Set(losses), new Set(['dev-1/s1:evicted [[1,3]]']), 'each try the same record');
  assert.equal(lost, ['evicted 3']);
  writer.accept('s1', readings(6));
  calls.at(-1)!.resolve();
  await tick();
  assert.equal(acks.at(-1), { type: 'ack', session: 's1', seq: 6 }, 'and acks go on');
});

test('a declaration the store refuses: warned once, summed, never retried, and nothing acked past it', async () => {
  const { writer, calls, acks, losses, lossesFail, lookups, sink } = setup();
  writer.accept('s1', readings(4, 5));
  lookups[0]!.resolve(false);
  await tick();
  calls[0]!.resolve();
  await tick();
  lossesFail.refuse = true;
  writer.declare('s1', 'evicted', [[1, 3]]);
  writer.declare('s1', 'evicted', [[1, 3]]);
  for (let i = 0; i < 3; i++) await tick();
  assert.equal(acks, [], 'the gap stays: readings 4 and 5 wait');
  assert.is(losses.length, 2, 'each declaration asked once, none retried');
  const refused = sink.find('loss refused');
  assert.is(refused.length, 1, 'the first at once, the second summed');
  assert.is(refused[0]!.reason, 'session s1 would keep 4 lost ranges, over the 3 kept');
  writer.accept('s1', readings(6));
  calls.at(-1)!.resolve();
  await tick();
  assert.equal(acks, [], 'a reading past the gap is still not acknowledged');
});

test('the stored documents: the fields, the timestamp a date, receivedAt when the frame came', async () => {
  const { writer, calls } = setup();
  const receivedAt = new Date('2026-02-03T04:05:06.789Z');
  writer.accept('s1', [{ seq: 1, timestamp: '2026-01-01T00:00:07.250+01:00', value: 'line' }], receivedAt);
  assert.equal(calls[0]!.docs, [
    {
      deviceId: 'dev-1',
      session: 's1',
      seq: 1,
      timestamp: new Date('2025-12-31T23:00:07.250Z'),
      value: 'line',
      receivedAt,
    },
  ]);
});

test('a reading it cannot store as given is acked as refused, in order, and never written', async () => {
  const { writer, calls, acks, sink, refusals } = setup();
  writer.accept('s1', [
    { seq: 1, timestamp: at(1), value: 'ok' },
    { seq: 2, timestamp: 'yesterday', value: 'bad clock' },
    { seq: 3, timestamp: at(3), value: 'x'.repeat(8 * 1024 + 1) },
    { seq: 4, timestamp: at(4), value: 'é'.repeat(4 * 1024) }, // 8 KiB of UTF-8 exactly: fine
  ]);
  assert.equal(seqs(calls[0]), ['s1:1', 's1:4']);
  calls[0]!.resolve();
  await tick();
  assert.equal(acks, [{ type: 'ack', session: 's1', seq: 4, refused: [2, 3] }]);
  const warned = sink.find('refused');
  assert.is(warned.length, 1, 'one summed warning, not one per reading');
  assert.is(warned[0]!.seq, 2);
  assert.is(warned[0]!.reason, 'timestamp is not an ISO 8601 date-time with a zone');
  assert.equal(refusals, [], 'the ack ends on a stored reading: nothing to record');
  // Only refusals: no insert; the ack ends on a refusal, which is recorded before it is sent.
  writer.accept('s1', [{ seq: 5, timestamp: '2026-01-01', value: 'no time' }]);
  await tick();
  assert.is(calls.length, 1);
  assert.equal(refusals, ['dev-1/s1:5']);
  assert.equal(acks.at(-1), { type: 'ack', session: 's1', seq: 5, refused: [5] });
});

test('a timestamp over 5 minutes ahead of receipt is refused; within the tolerance it is stored', async () => {
  const { writer, calls, acks, sink } = setup();
  const receivedAt = new Date(Date.UTC(2026, 0, 1));
  const ahead = (ms: number) => new Date(receivedAt.getTime() + ms).toISOString();
  writer.accept(
    's1',
    [
      { seq: 1, timestamp: ahead(5 * 60_000), value: 'at the tolerance' },
      { seq: 2, timestamp: ahead(5 * 60_000 + 1), value: 'just past it' },
      { seq: 3, timestamp: '2099-01-01T00:00:00Z', value: 'far future' },
    ],
    receivedAt,
  );
  assert.equal(seqs(calls[0]), ['s1:1']);
  calls[0]!.resolve();
  await tick();
  assert.equal(acks, [{ type: 'ack', session: 's1', seq: 3, refused: [2, 3] }]);
  assert.is(sink.find('refused')[0]!.reason, "timestamp is more than 5 minutes ahead of the backend's clock");
});

test('a resend from the last ack + 1 on a new socket: one lookup of the reading before, then acked', async () => {
  const { writer, calls, lookups, acks } = setup();
  writer.accept('s1', readings(5, 6));
  assert.equal(
    lookups.map((l) => l.at),
    ['dev-1/s1:4'],
  );
  assert.is(calls.length, 0, 'no write before the lookup answered');
  lookups[0]!.resolve(true);
  await tick();
  assert.equal(seqs(calls[0]), ['s1:5', 's1:6']);
  calls[0]!.resolve();
  await tick();
  writer.accept('s1', readings(7));
  writer.accept('s2', readings(1));
  calls[1]!.resolve();
  await tick();
  calls[2]!.resolve();
  await tick();
  assert.is(lookups.length, 1, 'one lookup per session and socket; none for a session starting at 1');
  assert.equal(acks, [
    { type: 'ack', session: 's1', seq: 6 },
    { type: 'ack', session: 's1', seq: 7 },
    { type: 'ack', session: 's2', seq: 1 },
  ]);
});

test('5,6 then 1..4, 4 not stored: 5,6 stored at once, no ack claims 1-4 until they came, then 6', async () => {
  const { writer, calls, lookups, acks, budget } = setup();
  writer.accept('s1', readings(5, 6));
  lookups[0]!.resolve(false);
  await tick();
  assert.equal(seqs(calls[0]), ['s1:5', 's1:6'], 'readings past the gap are stored');
  calls[0]!.resolve();
  await tick();
  assert.equal(acks, [], 'nothing acked past the gap');
  assert.is(budget.held, 0, 'their bytes are given back: they wait as numbers only');
  writer.accept('s1', readings(1, 2));
  calls[1]!.resolve();
  await tick();
  assert.equal(acks, [{ type: 'ack', session: 's1', seq: 2 }]);
  writer.accept('s1', readings(3, 4));
  calls[2]!.resolve();
  await tick();
  assert.equal(acks.at(-1), { type: 'ack', session: 's1', seq: 6 });
  // A frame that goes back is settled already: not written again, and acked at the mark, never lower.
  writer.accept('s1', readings(2, 3));
  await waitFor(() => acks.length === 3, { timeout: 2000, what: 'the ack of the frame that went back' });
  assert.is(calls.length, 3, 'no insert for it');
  assert.equal(acks.at(-1), { type: 'ack', session: 's1', seq: 6 });
  assert.is(lookups.length, 1);
});

test('a gap never filled: what follows is stored, never acked, and counts against the held bound', async () => {
  const { writer, calls, acks, overflows } = setup({ heldMax: 4 });
  writer.accept('s1', readings(1, 3));
  calls[0]!.resolve();
  await tick();
  assert.equal(acks, [{ type: 'ack', session: 's1', seq: 1 }]);
  writer.accept('s1', readings(4, 5));
  calls[1]!.resolve();
  await tick();
  assert.equal(
    acks.map((a) => a.seq),
    [1, 1],
    'no ack past 1 while 2 is missing',
  );
  writer.accept('s1', readings(6));
  assert.equal(overflows, [], 'three wait past the gap, one arrives: four held');
  writer.accept('s1', readings(7));
  assert.equal(overflows, ['over 4 readings held']);
});

test('a refusal past a gap is named once the gap is filled', async () => {
  const { writer, calls, acks } = setup();
  writer.accept('s1', [...readings(1), { seq: 3, timestamp: 'never', value: 'bad clock' }]);
  calls[0]!.resolve();
  await tick();
  assert.equal(acks, [{ type: 'ack', session: 's1', seq: 1 }]);
  writer.accept('s1', readings(2));
  calls[1]!.resolve();
  await tick();
  assert.equal(acks.at(-1), { type: 'ack', session: 's1', seq: 3, refused: [3] });
});

test('a failed lookup acks and writes nothing and is retried with backoff, like a failed write', async () => {
  const { writer, calls, lookups, acks, sink } = setup();
  writer.accept('s1', readings(3));
  lookups[0]!.reject(new DatabaseUnavailableError('timeout', 'the database did not answer within 2000 ms'));
  await waitFor(() => lookups.length === 2, { timeout: 2000, what: 'the retried lookup' });
  assert.is(calls.length, 0);
  assert.is(sink.find('failed')[0]!.reason, 'the database did not answer within 2000 ms');
  lookups[1]!.resolve(true);
  await tick();
  calls[0]!.resolve();
  await tick();
  assert.equal(acks, [{ type: 'ack', session: 's1', seq: 3 }]);
});

test('an ack ending on a refusal waits for its record; a failed record is retried, then the ack is sent', async () => {
  const { writer, calls, refusals, refusalsFail, acks } = setup();
  refusalsFail.now = true;
  writer.accept('s1', [...readings(1), { seq: 2, timestamp: 'never', value: 'bad clock' }]);
  calls[0]!.resolve();
  // The record is made when its turn comes, not within one tick: waited for, so that it is a failing one (tried
  // again every 5 to 20 ms while it fails, so how many fail before the switch below is not fixed).
  await waitFor(() => refusals.length >= 1, { timeout: 2000, what: 'the first record of the refusal' });
  assert.equal(acks, [], 'not acked while the refusal is not recorded');
  refusalsFail.now = false;
  // The retry writes no reading again (1 is stored, 2 refused: both at the mark now), only the refusal's record.
  await waitFor(() => acks.length === 1, { timeout: 2000, what: 'the retry' });
  assert.is(calls.length, 1);
  assert.ok(refusals.length >= 2, `tried again after the failure: ${refusals.length} tries`);
  assert.equal(new Set(refusals), new Set(['dev-1/s1:2']), 'each try the same record');
  assert.equal(acks, [{ type: 'ack', session: 's1', seq: 2, refused: [2] }]);
});

test('a device reconnecting to the same process resumes at its last ack without a lookup', async () => {
  const lastAcked = new Map<string, { session: string; seq: number }>();
  const first = setup({ lastAcked });
  first.writer.accept('s1', readings(1, 2));
  first.calls[0]!.resolve();
  await tick();
  first.writer.close();
  const second = setup({ lastAcked });
  second.writer.accept('s1', readings(3));
  assert.is(second.lookups.length, 0);
  second.calls[0]!.resolve();
  await tick();
  assert.equal(second.acks, [{ type: 'ack', session: 's1', seq: 3 }]);
});

test('a failed write acks nothing and is retried with what arrived meanwhile, in one insert', async () => {
  const { writer, calls, acks, sink } = setup();
  writer.accept('s1', readings(1, 2));
  calls[0]!.reject(new DatabaseUnavailableError('not-connected', 'the database is not connected'));
  await tick();
  writer.accept('s1', readings(3));
  assert.equal(acks, []);
  await waitFor(() => calls.length === 2, { timeout: 2000, what: 'the retry' });
  assert.equal(seqs(calls[1]), ['s1:1', 's1:2', 's1:3']);
  calls[1]!.reject(new Error('E11000-free failure'));
  await waitFor(() => calls.length === 3, { timeout: 2000, what: 'the second retry' });
  calls[2]!.resolve({ inserted: 1, duplicates: [0, 1] }); // the first attempt had stored 1 and 2 after all
  await tick();
  assert.equal(acks, [{ type: 'ack', session: 's1', seq: 3 }]);
  const failed = sink.find('failed');
  assert.is(failed[0]!.reason, 'the database is not connected');
  assert.is(failed[0]!.held, 2);
});

test('past the held bound it drops its copies, asks for the socket to close, and acks nothing after', async () => {
  const { writer, calls, acks, overflows, budget } = setup({ heldMax: 5 });
  writer.accept('s1', readings(1, 2, 3));
  writer.accept('s1', readings(4, 5));
  assert.equal(overflows, []);
  writer.accept('s1', readings(6));
  assert.equal(overflows, ['over 5 readings held']);
  assert.is(budget.held, 0, 'what it held is given back');
  calls[0]!.resolve();
  writer.accept('s1', readings(7));
  await tick();
  assert.equal(acks, []);
  assert.is(calls.length, 1);
});

test('the bytes all sockets hold are bounded together: the socket that would pass it is the one closed', async () => {
  const budget = createHeldBudget(2000);
  const first = setup({ budget });
  const second = setup({ budget });
  first.writer.accept('s1', [{ seq: 1, timestamp: at(1), value: 'x'.repeat(1200) }]);
  second.writer.accept('s1', [{ seq: 1, timestamp: at(1), value: 'y'.repeat(1200) }]);
  assert.equal(first.overflows, []);
  assert.equal(second.overflows, ['the readings held for all sockets would pass 2000 bytes']);
  first.calls[0]!.resolve();
  await tick();
  assert.is(budget.held, 0);
});

test('close(): the write in flight finishes unacknowledged, nothing is retried', async () => {
  const { writer, calls, acks } = setup();
  writer.accept('s1', readings(1));
  writer.close();
  calls[0]!.resolve();
  await tick();
  writer.accept('s1', readings(2));
  assert.equal(acks, []);
  assert.is(calls.length, 1);
});

test('at debug level, one line per write lists what it stored anew (not the resends)', async () => {
  const { writer, calls, sink } = setup();
  writer.accept('s1', readings(1, 2, 3));
  calls[0]!.resolve({ inserted: 2, duplicates: [0] });
  await tick();
  const [line] = sink.find('readings stored');
  assert.equal(
    { inserted: line!.inserted, duplicates: line!.duplicates, refused: line!.refused, readings: line!.readings },
    {
      inserted: 2,
      duplicates: 1,
      refused: 0,
      readings: [
        { session: 's1', seq: 2, value: 'v2' },
        { session: 's1', seq: 3, value: 'v3' },
      ],
    },
  );
});

test('a message of many ranges is one recording: the store is called once per session and reason', async () => {
  const { writer, acks, losses } = setup();
  writer.declare('s1', 'evicted', [
    [1, 2],
    [4, 4],
    [5, 9],
  ]);
  writer.declare('s1', 'evicted', [[3, 3]]);
  await waitFor(() => acks.at(-1)?.seq === 9, { timeout: 2000, what: 'the ack past the ranges' });
  assert.equal(losses, ['dev-1/s1:evicted [[1,2],[4,9]]', 'dev-1/s1:evicted [[3,3]]'], 'one call per batch');
  assert.equal(acks, [
    { type: 'ack', session: 's1', seq: 2 },
    { type: 'ack', session: 's1', seq: 9 },
  ]);
});

test('a declared reading that arrives later is not written: counted lost once, never stored as well', async () => {
  const { writer, calls, acks, losses } = setup();
  writer.accept('s1', readings(...Array.from({ length: 20 }, (_, i) => i + 1)));
  calls[0]!.resolve();
  await tick();
  writer.declare('s1', 'evicted', [[21, 30]]);
  await waitFor(() => acks.length === 2, { timeout: 2000, what: 'the ack past the declared range' });
  assert.equal(losses, ['dev-1/s1:evicted [[21,30]]']);
  writer.accept('s1', readings(26, 27, 28, 29, 30, 31));
  await tick();
  assert.equal(seqs(calls[1]), ['s1:31'], '26..30 are declared lost already: only 31 is written');
  calls[1]!.resolve();
  await tick();
  assert.equal(acks, [
    { type: 'ack', session: 's1', seq: 20 },
    { type: 'ack', session: 's1', seq: 30 },
    { type: 'ack', session: 's1', seq: 31 },
  ]);
});

test('a declared range counts nothing at or below the ack mark as lost: a refusal in it is no loss', async () => {
  const lost: string[] = [];
  const { writer, calls, acks, losses } = setup({ onLost: (reason, n) => lost.push(`${reason} ${n}`) });
  writer.accept('s1', [...readings(1), { seq: 2, timestamp: 'never', value: 'bad clock' }, ...readings(3)]);
  calls[0]!.resolve();
  await tick();
  assert.equal(acks, [{ type: 'ack', session: 's1', seq: 3, refused: [2] }]);
  // The device never saw that ack (its socket went), lost 1..5 from its spool, and says so.
  writer.declare('s1', 'evicted', [[1, 5]]);
  await tick();
  assert.equal(losses, ['dev-1/s1:evicted [[4,5]]'], 'only what lies past the mark is recorded');
  assert.equal(lost, ['evicted 2']);
  assert.equal(acks.at(-1), { type: 'ack', session: 's1', seq: 5 });
  writer.declare('s1', 'evicted', [[2, 3]]);
  await tick();
  assert.equal(losses.length, 1, 'a range wholly at or below the mark records nothing');
  assert.equal(acks.at(-1), { type: 'ack', session: 's1', seq: 5 });
});

test('a refusal waiting past a gap is no loss when a declared range covers it: counted refused, not lost', async () => {
  const { writer, calls, acks, losses, lookups } = setup();
  writer.accept('s1', [{ seq: 2, timestamp: 'never', value: 'bad clock' }, ...readings(3)]);
  lookups[0]!.resolve(false); // seq 1 is not stored
  await tick();
  calls[0]!.resolve();
  await tick();
  assert.equal(acks, [], 'past a gap: nothing acknowledged');
  // The device never had an ack for 2 and 3, evicted 1..3 from its spool, and says so.
  writer.declare('s1', 'evicted', [[1, 3]]);
  await tick();
  assert.equal(losses, ['dev-1/s1:evicted [[1,1],[3,3]]'], 'the refused 2 is left out of the recorded range');
  assert.equal(acks.at(-1)?.seq, 3);
});

test('a refusal earlier in the same batch as a declared range covering it is no loss', async () => {
  const { writer, calls, acks, losses } = setup();
  writer.accept('s1', readings(1));
  // While 1 is written, 2 (refused) and 3 come, and then the range 2..4 the device declares lost: one batch.
  writer.accept('s1', [{ seq: 2, timestamp: 'never', value: 'bad clock' }, ...readings(3)]);
  writer.declare('s1', 'evicted', [[2, 4]]);
  calls[0]!.resolve();
  await tick();
  assert.equal(seqs(calls[1]), ['s1:3'], 'the next batch holds 2, 3 and the range');
  calls[1]!.resolve();
  await tick();
  assert.equal(losses, ['dev-1/s1:evicted [[3,4]]'], 'the refused 2 is left out of the recorded range');
  assert.equal(acks.at(-1)?.seq, 4);
});

test.run();
