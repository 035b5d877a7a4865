import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openReadingSpool, type ReadingSpool, type ReadingSpoolOptions } from './reading-spool.ts';
import { parseDeviceMessage, type ReadingsMessage } from '../../lib/device-protocol.ts';
import { createLogSink, type LogSink } from '../../test/support/log-sink.ts';
import { configError } from '../../test/support/config-error.ts';
import { lockSpool } from './spool-lock.ts';

interface Ctx {
  dir: string;
  sink: LogSink;
  open: ReadingSpool[];
}
const test = suite<Ctx>('reading spool', { dir: '', sink: createLogSink(), open: [] });

test.before.each((ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'reading-spool-'));
  ctx.sink = createLogSink();
  ctx.open = [];
});
test.after.each((ctx) => {
  for (const spool of ctx.open) spool.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});

function open(ctx: Ctx, session: string, options: Partial<ReadingSpoolOptions> = {}) {
  const spool = openReadingSpool({
    dir: ctx.dir,
    session,
    deviceId: 'device-a',
    maxBytes: 1 << 20,
    log: ctx.sink.log,
    ...options,
  });
  ctx.open.push(spool);
  return spool;
}

/** Every frame the outbox hands out from the oldest on, as [session, seq, value], frame by frame. */
function drain(spool: ReadingSpool) {
  const limits = { deviceId: 'd', maxBytes: 1 << 20, inFlightMax: 1 << 20 };
  const frames: Array<Array<[string, number, string]>> = [];
  spool.outbox.rewind();
  for (let frame = spool.outbox.next(limits); frame; frame = spool.outbox.next(limits)) {
    const { session, readings } = parseDeviceMessage(frame.text) as ReadingsMessage;
    assert.equal(
      [frame.session, frame.firstSeq, frame.lastSeq, frame.count],
      [session, readings[0]!.seq, readings.at(-1)!.seq, readings.length],
    );
    frames.push(readings.map((r) => [session, r.seq, r.value]));
  }
  return frames;
}
const all = (spool: ReadingSpool) => drain(spool).flat();
const segmentFiles = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.spool'))
    .sort();
const fill = (spool: ReadingSpool, from: number, to: number, prefix = 'v') => {
  for (let i = from; i <= to; i++) spool.push(`${prefix}${i}`);
};

test('numbers readings from 1 and has each in the file (write(2)) before push returns', (ctx) => {
  const spool = open(ctx, 's1');
  const at = new Date('2024-05-01T10:00:00.000Z');
  assert.equal(spool.push('t=21.5', at), { seq: 1, timestamp: '2024-05-01T10:00:00.000Z', value: 't=21.5' });
  assert.is(spool.push('t=21.6')!.seq, 2);
  const [file] = segmentFiles(ctx.dir);
  const text = readFileSync(join(ctx.dir, file!), 'utf8');
  assert.match(text, /"value":"t=21.5"/);
  assert.match(text, /"value":"t=21.6"\}\}\n$/);
  assert.equal(spool.stats(), {
    unacknowledged: 2,
    spoolBytes: statSync(join(ctx.dir, file!)).size,
    dropped: 0,
    unwritten: 0,
    refused: 0,
    declaredLost: 0,
  });
  assert.equal(all(spool), [
    ['s1', 1, 't=21.5'],
    ['s1', 2, 't=21.6'],
  ]);
});

test('an ack forgets its session up to seq, and only that; repeated or foreign acks change nothing', (ctx) => {
  const spool = open(ctx, 's1');
  fill(spool, 1, 5);
  assert.is(spool.ack({ type: 'ack', session: 's1', seq: 3 }), 3);
  assert.is(spool.stats().unacknowledged, 2, 'the stats follow');
  assert.equal(
    all(spool).map(([, seq]) => seq),
    [4, 5],
  );
  assert.is(spool.ack({ type: 'ack', session: 's1', seq: 3 }), 0);
  assert.is(spool.ack({ type: 'ack', session: 'other', seq: 99 }), 0);
  assert.is(spool.ack({ type: 'ack', session: 's1', seq: 99 }), 2);
  assert.is(spool.size, 0);
  assert.is(spool.push('next')!.seq, 6, 'numbering continues within the session');
});

test('a restart resends the previous session’s unacknowledged readings first, then the new ones', (ctx) => {
  const first = open(ctx, 's1');
  fill(first, 1, 5, 'a');
  first.ack({ type: 'ack', session: 's1', seq: 2 });
  // No close(): a SIGKILL leaves the files as they are.
  const second = open(ctx, 's2');
  assert.is(second.size, 3);
  fill(second, 1, 2, 'b');
  const third = open(ctx, 's3'); // killed again before anything was acked
  fill(third, 1, 1, 'c');
  assert.equal(drain(third), [
    [
      ['s1', 3, 'a3'],
      ['s1', 4, 'a4'],
      ['s1', 5, 'a5'],
    ],
    [
      ['s2', 1, 'b1'],
      ['s2', 2, 'b2'],
    ],
    [['s3', 1, 'c1']],
  ]);
  // Acks of the old sessions are kept too: the next start resends only what is left.
  third.ack({ type: 'ack', session: 's1', seq: 5 });
  third.ack({ type: 'ack', session: 's2', seq: 1 });
  third.close();
  assert.equal(all(open(ctx, 's4')), [
    ['s2', 2, 'b2'],
    ['s3', 1, 'c1'],
  ]);
  assert.equal(ctx.sink.find('unreadable'), [], 'nothing to skip after clean writes');
});

test('segments left empty by starts that read nothing are removed, not kept open', (ctx) => {
  open(ctx, 's1').push('kept');
  for (let i = 2; i <= 5; i++) open(ctx, `s${i}`); // each start makes a segment of its own
  assert.is(segmentFiles(ctx.dir).length, 2, "s1's and the last start's");
  const last = open(ctx, 's6');
  assert.equal(all(last), [['s1', 1, 'kept']]);
  assert.is(segmentFiles(ctx.dir).length, 2, 's1 and s6 only');
});

test('a torn last record (a crash mid-write) is skipped with one warning; the rest is kept', (ctx) => {
  const first = open(ctx, 's1');
  fill(first, 1, 3);
  const [file] = segmentFiles(ctx.dir);
  appendFileSync(join(ctx.dir, file!), '1234abcd {"type":"reading","session":"s1","rea');
  const second = open(ctx, 's2');
  fill(second, 1, 1, 'new');
  assert.equal(all(second), [
    ['s1', 1, 'v1'],
    ['s1', 2, 'v2'],
    ['s1', 3, 'v3'],
    ['s2', 1, 'new1'],
  ]);
  const [warning, ...more] = ctx.sink.find('unreadable');
  assert.equal(more, []);
  assert.is(warning!.level, 40);
  assert.equal([warning!.torn, warning!.skipped, warning!.files], [1, 0, [join(ctx.dir, file!)]]);
});

test('a record damaged in the middle is skipped with one warning; the readable ones around it are kept', (ctx) => {
  const first = open(ctx, 's1');
  fill(first, 1, 5);
  first.ack({ type: 'ack', session: 's1', seq: 1 });
  const path = join(ctx.dir, segmentFiles(ctx.dir)[0]!);
  const bytes = readFileSync(path);
  const third = bytes.indexOf('"v3"');
  bytes[third + 1] = 'x'.charCodeAt(0); // v3 → x3 under the old checksum
  const lines = bytes.toString('latin1').split('\n');
  lines.splice(1, 1, 'not a record at all'); // and v2's line replaced by garbage
  writeFileSync(path, Buffer.from(lines.join('\n'), 'latin1'));
  const second = open(ctx, 's2');
  assert.equal(
    all(second).map(([, seq, value]) => `${seq}:${value}`),
    ['4:v4', '5:v5'],
  );
  const warnings = ctx.sink.find('unreadable');
  assert.is(warnings.length, 1);
  assert.equal([warnings[0]!.skipped, warnings[0]!.torn], [2, 0]);
});

test('past DEVICE_SPOOL_MAX_BYTES the oldest go, counted and in a summed warning; the spool stays bounded', (ctx) => {
  const spool = open(ctx, 's1', { maxBytes: 8 * 1024, segmentBytes: 1024, warnIntervalMs: 60_000 });
  let largest = 0;
  for (let i = 1; i <= 500; i++) {
    spool.push(`reading-${i}`);
    largest = Math.max(largest, spool.stats().spoolBytes);
    const onDisk = segmentFiles(ctx.dir).reduce((sum, name) => sum + statSync(join(ctx.dir, name)).size, 0);
    assert.is(onDisk, spool.stats().spoolBytes, 'spoolBytes is what is on disk');
  }
  assert.ok(largest <= 8 * 1024, `the spool reached ${largest} bytes`);
  const { unacknowledged, dropped } = spool.stats();
  assert.is(unacknowledged + dropped, 500);
  assert.ok(dropped > 400, `${dropped} dropped`);
  const kept = all(spool).map(([, seq]) => seq);
  assert.equal(
    kept,
    Array.from({ length: unacknowledged }, (_, i) => 500 - unacknowledged + 1 + i),
    'the newest are kept, in order',
  );
  spool.close(); // reports what the interval held back
  const warnings = ctx.sink.find('spool full');
  assert.is(warnings.length, 2, 'the first drop at once, the rest in one summed line');
  assert.is(
    warnings.reduce((sum, w) => sum + w.count, 0),
    dropped,
  );
  assert.is(warnings[1]!.total, dropped);
  assert.match(warnings[0]!.msg, /^spool full \(8192 bytes\): dropped the \d+ oldest unacknowledged readings$/);
});

test('acknowledged segments are deleted: a long run keeps the spool at a segment or two', (ctx) => {
  const spool = open(ctx, 's1', { maxBytes: 64 * 1024, segmentBytes: 2048 });
  for (let i = 1; i <= 3000; i++) {
    spool.push(`reading-${i}`);
    if (i % 10 === 0) spool.ack({ type: 'ack', session: 's1', seq: i });
  }
  assert.ok(segmentFiles(ctx.dir).length <= 2, segmentFiles(ctx.dir).join(' '));
  assert.ok(spool.stats().spoolBytes <= 2 * 2048 + 200, `${spool.stats().spoolBytes} bytes`);
  assert.equal(spool.stats().dropped, 0);
  assert.is(spool.size, 0);
  spool.close();
  assert.is(open(ctx, 's2').size, 0, 'and a restart finds nothing to resend');
});

test('refused readings are forgotten with one summed warning; the readings after them are still sent', (ctx) => {
  const spool = open(ctx, 's1', { warnIntervalMs: 60_000 });
  fill(spool, 1, 6);
  assert.is(spool.ack({ type: 'ack', session: 's1', seq: 3, refused: [2] }), 3);
  assert.is(spool.ack({ type: 'ack', session: 's1', seq: 5, refused: [2, 4, 5] }), 2, 'seq 2 is gone already');
  assert.equal(
    all(spool).map(([, seq]) => seq),
    [6],
  );
  spool.close();
  assert.equal(
    ctx.sink.find('refused').map((w) => [w.msg, w.count, w.total]),
    [
      ['the backend refused 1 reading: dropped', 1, 1],
      ['the backend refused 2 readings: dropped', 2, 3],
    ],
  );
  assert.equal(
    all(open(ctx, 's2')).map(([, seq]) => seq),
    [6],
    'not resent after a restart either',
  );
});

test('a DEVICE_SPOOL_DIR that cannot be written is a one-line ConfigError naming it', (ctx) => {
  const file = join(ctx.dir, 'a-file');
  writeFileSync(file, '');
  for (const dir of [file, join(file, 'spool')]) {
    const message = configError(() =>
      openReadingSpool({ dir, session: 's', deviceId: 'd', maxBytes: 1 << 20, log: ctx.sink.log }),
    );
    assert.match(message, new RegExp(`^DEVICE_SPOOL_DIR=${dir} cannot be used: E[A-Z]+: .*this user can write\\)$`));
  }
});

test('a changed DEVICE_ID with readings unacknowledged is said once, naming both; the spool keeps the new', (ctx) => {
  const first = open(ctx, 's1');
  fill(first, 1, 3);
  first.close();
  assert.is(readFileSync(join(ctx.dir, 'device'), 'utf8'), 'device-a');

  const renamed = open(ctx, 's2', { deviceId: 'device-b' });
  assert.equal(
    all(renamed).map(([session, seq]) => [session, seq]),
    [
      ['s1', 1],
      ['s1', 2],
      ['s1', 3],
    ],
    'still sent: nothing read is dropped',
  );
  const said = ctx.sink.entries.filter((l) => l.msg.includes('DEVICE_ID changed'));
  assert.equal(
    said.map((l) => [l.level, l.msg, l.was, l.now, l.unacknowledged]),
    [
      [
        40,
        'spool: 3 unacknowledged readings read as device "device-a" will be sent as "device-b" (DEVICE_ID changed)',
        'device-a',
        'device-b',
        3,
      ],
    ],
  );
  renamed.close();
  assert.is(readFileSync(join(ctx.dir, 'device'), 'utf8'), 'device-b');

  // The same name again, or a new name over an empty spool: nothing to say.
  open(ctx, 's3', { deviceId: 'device-b' }).close();
  const emptied = open(ctx, 's4', { deviceId: 'device-b' });
  assert.is(emptied.ack({ type: 'ack', session: 's1', seq: 3 }), 3);
  emptied.close();
  open(ctx, 's5', { deviceId: 'device-c' }).close();
  assert.is(ctx.sink.entries.filter((l) => l.msg.includes('DEVICE_ID changed')).length, 1);
  assert.is(readFileSync(join(ctx.dir, 'device'), 'utf8'), 'device-c');
});

test('a spool directory removed while running is made again; nothing read is dropped', (ctx) => {
  const states: string[] = [];
  const spool = open(ctx, 's1', { onState: (state) => states.push(state) });
  fill(spool, 1, 3);
  rmSync(ctx.dir, { recursive: true });
  fill(spool, 4, 6);
  assert.ok(existsSync(ctx.dir), 'made again');
  assert.equal(
    all(spool).map(([, seq]) => seq),
    [1, 2, 3, 4, 5, 6],
    'the readings of the removed segment still go out, from the open file',
  );
  assert.equal([spool.stats().dropped, spool.stats().unwritten, states], [0, 0, []]);
  assert.is(readFileSync(join(ctx.dir, 'lock'), 'utf8').split(' ')[0], String(process.pid), 'the lock is back');
  assert.is(readFileSync(join(ctx.dir, 'device'), 'utf8'), 'device-a');
  assert.equal(
    ctx.sink.find('was removed').map((w) => w.msg),
    [`spool directory ${ctx.dir} was removed: made it again (1 time)`],
  );
  spool.ack({ type: 'ack', session: 's1', seq: 2 }); // deletes nothing it cannot find
  spool.close();
  assert.equal(
    all(open(ctx, 's2')).map(([, seq]) => seq),
    [4, 5, 6],
    'a restart finds what was written after the removal',
  );
});

test('a spool that cannot be written: unwritable, counted, one summed warning naming the cause; then back', (ctx) => {
  const states: string[] = [];
  const reasons: (string | undefined)[] = [];
  const onState = (state: string, reason?: string) => states.push(state) && reasons.push(reason);
  const spool = open(ctx, 's1', { onState, warnIntervalMs: 60_000 });
  fill(spool, 1, 2);
  rmSync(ctx.dir, { recursive: true });
  writeFileSync(ctx.dir, 'a file where the directory was');
  for (let i = 3; i <= 7; i++) assert.is(spool.push(`v${i}`), undefined);
  assert.equal(states, ['unwritable']);
  assert.equal([spool.stats().unwritten, spool.stats().dropped], [5, 0], 'not counted as dropped (spool full)');
  rmSync(ctx.dir);
  assert.is(spool.push('v8')!.seq, 8);
  assert.equal(states, ['unwritable', 'writable']);
  assert.match(reasons[0] ?? '', /^(ENOTDIR|EEXIST): /, 'why it is unwritable, for the readiness details');
  assert.is(reasons[1], undefined);
  assert.equal(
    all(spool).map(([, seq]) => seq),
    [1, 2, 8],
  );
  spool.close();
  const warnings = ctx.sink.find('could not write');
  assert.equal(
    warnings.map((w) => [w.msg, w.code]),
    [
      ['could not write 1 record to the spool', 'ENOTDIR'],
      ['could not write 4 records to the spool', 'ENOTDIR'],
    ],
  );
  assert.equal(ctx.sink.find('spool full'), []);
});

test('every number ends kept or declared: evicted and unwritten, forgotten once acked, found on restart', (ctx) => {
  const spool = open(ctx, 's1', { maxBytes: 8 * 1024, segmentBytes: 1024, warnIntervalMs: 60_000 });
  fill(spool, 1, 300);
  const kept = all(spool).map(([, seq]) => seq);
  let evicted = kept[0]! - 1;
  assert.ok(evicted > 0, 'some were evicted');
  assert.equal(spool.losses.unsent(), [{ session: 's1', reason: 'evicted', ranges: [[1, evicted]] }]);
  assert.equal(spool.losses.unsent(), [], 'declared once per socket');
  assert.is(spool.stats().declaredLost, evicted);
  // A write that fails uses up its number: 301 is declared unwritten.
  rmSync(ctx.dir, { recursive: true });
  writeFileSync(ctx.dir, 'a file where the directory was');
  assert.is(spool.push('v301'), undefined);
  rmSync(ctx.dir);
  fill(spool, 302, 303);
  const more = all(spool)[0]![1] - 1 > evicted; // the new segment may have evicted more
  evicted = all(spool)[0]![1] - 1;
  assert.equal(spool.losses.unsent(), [
    ...(more ? [{ session: 's1', reason: 'evicted', ranges: [[1, evicted]] }] : []),
    { session: 's1', reason: 'unwritten', ranges: [[301, 301]] },
  ]);
  assert.is(spool.stats().declaredLost + spool.stats().unacknowledged, 303, 'each number is kept or declared');
  spool.close();

  // A restart finds the gap before the earlier session's first kept reading: the segments that went with the removed
  // directory (their readings were still sent from the open files) are gone now too.
  const second = open(ctx, 's2');
  assert.equal(second.losses.unsent(), [{ session: 's1', reason: 'evicted', ranges: [[1, 301]] }]);
  second.ack({ type: 'ack', session: 's1', seq: 303 });
  assert.equal([second.stats().declaredLost, second.stats().unacknowledged], [0, 0]);
  second.close();
  const third = open(ctx, 's3');
  assert.equal(third.losses.unsent(), [], 'acknowledged past: nothing left to declare');
});

test('a restart declares the gaps an earlier session left past its last ack: evicted before, unwritten in', (ctx) => {
  const first = open(ctx, 's1', { maxBytes: 8 * 1024, segmentBytes: 1024 });
  fill(first, 1, 300);
  const oldest = all(first)[0]![1];
  first.ack({ type: 'ack', session: 's1', seq: 10 });
  first.close();
  // A damaged record in the middle: its number is skipped like one never written.
  const path = join(ctx.dir, segmentFiles(ctx.dir).at(-1)!);
  const lines = readFileSync(path, 'latin1').split('\n');
  lines.splice(1, 1, 'not a record at all');
  writeFileSync(path, Buffer.from(lines.join('\n'), 'latin1'));
  const second = open(ctx, 's2');
  const kept = all(second).map(([, seq]) => seq);
  const skipped = kept.find((seq, i) => i > 0 && seq !== kept[i - 1]! + 1)! - 1;
  assert.equal(second.losses.unsent(), [
    { session: 's1', reason: 'evicted', ranges: [[11, oldest - 1]] }, // 1..10 were acknowledged
    { session: 's1', reason: 'unwritten', ranges: [[skipped, skipped]] },
  ]);
  second.ack({ type: 'ack', session: 's1', seq: oldest + 5 });
  second.losses.rewind();
  assert.equal(second.losses.unsent(), [{ session: 's1', reason: 'unwritten', ranges: [[skipped, skipped]] }]);
});

test('an ack whose record went with an evicted segment still holds after a restart: never declared lost', (ctx) => {
  const first = open(ctx, 's1', { maxBytes: 8 * 1024, segmentBytes: 1024, warnIntervalMs: 60_000 });
  fill(first, 1, 20);
  first.ack({ type: 'ack', session: 's1', seq: 20 });
  // The spool fills while nothing more is acknowledged: the segment holding the ack record is evicted.
  fill(first, 21, 300);
  const oldest = all(first)[0]![1];
  assert.ok(oldest > 40, `evicted up to ${oldest - 1}`);
  assert.equal(first.losses.unsent(), [{ session: 's1', reason: 'evicted', ranges: [[21, oldest - 1]] }]);
  first.close();
  const second = open(ctx, 's2');
  assert.equal(second.losses.unsent(), [{ session: 's1', reason: 'evicted', ranges: [[21, oldest - 1]] }]);
  assert.is(second.size, 300 - oldest + 1);
});

test('readings never written at the end of a session are declared after the restart, once', (ctx) => {
  const first = open(ctx, 's1', { warnIntervalMs: 60_000 });
  fill(first, 1, 3);
  first.ack({ type: 'ack', session: 's1', seq: 3 });
  rmSync(ctx.dir, { recursive: true });
  writeFileSync(ctx.dir, 'a file where the directory was');
  assert.is(first.push('v4'), undefined);
  assert.is(first.push('v5'), undefined);
  rmSync(ctx.dir); // the file system is back, and the device stops before another reading is written
  first.close();
  const second = open(ctx, 's2');
  assert.equal(second.losses.unsent(), [{ session: 's1', reason: 'unwritten', ranges: [[4, 5]] }]);
  assert.is(second.size, 0);
  second.close();
  const third = open(ctx, 's3');
  assert.equal(third.losses.unsent(), [{ session: 's1', reason: 'unwritten', ranges: [[4, 5]] }], 'until acked');
  third.ack({ type: 'ack', session: 's1', seq: 5 });
  third.close();
  assert.equal(open(ctx, 's4').losses.unsent(), [], 'acknowledged past: nothing left to declare');
});

test('a spool directory locked by another live process is refused; a dead one’s lock is taken over', async (ctx) => {
  const other = spawn('sleep', ['30']);
  try {
    lockSpool(ctx.dir, other.pid);
    const message = configError(() => open(ctx, 's1'));
    assert.is(
      message,
      `DEVICE_SPOOL_DIR=${ctx.dir} is in use by another device service (pid ${other.pid}): ` +
        'one device service per directory',
    );
    // The same pid with another start time is another process (a pid used again): its lock holds nothing.
    const [pid, started] = readFileSync(join(ctx.dir, 'lock'), 'utf8').trim().split(' ');
    assert.is(pid, String(other.pid));
    writeFileSync(join(ctx.dir, 'lock'), `${pid} ${Number(started) + 1}\n`);
    open(ctx, 's0').close();
  } finally {
    other.kill();
    await new Promise((resolve) => other.once('exit', resolve));
  }
  const dead = spawnSync('true').pid;
  lockSpool(ctx.dir, dead);
  const spool = open(ctx, 's1');
  assert.is(readFileSync(join(ctx.dir, 'lock'), 'utf8').split(' ')[0], String(process.pid));
  spool.close();
  assert.not.ok(existsSync(join(ctx.dir, 'lock')), 'released on close');
});

test.run();
