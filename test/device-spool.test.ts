// The device service keeps what the backend has not acknowledged on disk: a real device process reading a socat pty
// is SIGKILLed (or stopped with SIGTERM) with readings unacknowledged, and the next process on the same spool
// sends them again, before its own, against an in-process fake backend.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Service } from './support/spawn-service.ts';
import { stopAll } from './support/spawn-process.ts';
import { waitFor } from './support/deadline.ts';
import { ptyDir, removePtyDir, startPtyPair, type PtyPair } from './support/pty-pair.ts';
import { jsonLines, startDevice } from './support/device-services.ts';
import { startFakeBackend, type FakeBackend } from './support/fake-device-backend.ts';
import { readingsOf } from '../lib/device-protocol.ts';
import { expectRefusal } from './support/refused-start.ts';

interface Ctx {
  backend: FakeBackend;
  pty: PtyPair;
  ptys: string;
  spool: string;
}
const test = suite<Ctx>('device spool across restarts', {} as Ctx);

test.before.each(async (ctx) => {
  ctx.backend = await startFakeBackend();
  ctx.ptys = ptyDir();
  ctx.pty = await startPtyPair(ctx.ptys);
  ctx.spool = mkdtempSync(join(tmpdir(), 'device-spool-test-'));
});

test.after.each(async (ctx) => {
  await stopAll();
  await ctx.pty?.stop();
  await ctx.backend?.kill();
  removePtyDir(ctx.ptys);
  rmSync(ctx.spool, { recursive: true, force: true });
});

const start = (ctx: Ctx) =>
  startDevice({
    SERIAL_PATH: ctx.pty.devicePath,
    BACKEND_URL: `http://127.0.0.1:${ctx.backend.port}`,
    DEVICE_SPOOL_DIR: ctx.spool,
    DEVICE_ID: 'spool-test',
  });

const health = async (device: Service) =>
  (await (await fetch(`${device.url}/api/health`)).json()) as {
    readings: { unacknowledged: number; spoolBytes: number; dropped: number; unwritten: number };
  };
/** The start-up line, which says what the spool held. */
const listening = (device: Service) => jsonLines(device).find((line) => line.msg === 'device service listening');
/** The sessions hellos named, each once: a device says hello again on the same socket to report its backlog. */
const hellos = (ctx: Ctx) => [...new Set(ctx.backend.received.filter((m) => m.type === 'hello').map((m) => m.session))];
/** Every reading the fake received, resends included, as `session:seq:value`. */
const received = (ctx: Ctx) =>
  ctx.backend.received.flatMap((m) =>
    m.type === 'hello' ? [] : readingsOf(m).map((r) => `${m.session}:${r.seq}:${r.value}`),
  );

/** A device that read `lines` and sent them, none acknowledged. */
async function deviceHolding(ctx: Ctx, lines: string[]): Promise<Service> {
  ctx.backend.acking = false;
  const device = await start(ctx);
  await waitFor(() => hellos(ctx).length === 1 && ctx.backend.connections === 1, { what: 'the device connected' });
  ctx.pty.write(lines.map((line) => `${line}\n`).join(''));
  await waitFor(() => received(ctx).length === lines.length, { what: `${lines.length} readings received` });
  const { readings } = await health(device);
  assert.is(readings.unacknowledged, lines.length, 'the liveness body counts them');
  assert.ok(readings.spoolBytes > 0);
  assert.is(readings.dropped, 0);
  return device;
}

/** Restarts on the same spool while the backend refuses the token, writes `lines`, then lets it in. */
async function restartWith(ctx: Ctx, lines: string[]): Promise<Service> {
  ctx.backend.token = 'not-the-devices-token-0123456789'; // held off until the new lines are in the spool
  ctx.backend.acking = true;
  const device = await start(ctx);
  const opened = await waitFor(() => listening(device), { what: 'the listening line' });
  await waitFor(
    async () => (await fetch(`${device.url}/api/ready`).then((r) => r.json())).checks.serial === 'connected',
    {
      what: 'the pty open',
    },
  );
  ctx.pty.write(lines.map((line) => `${line}\n`).join(''));
  const before = opened.spool.unacknowledged as number;
  await waitFor(async () => (await health(device)).readings.unacknowledged === before + lines.length, {
    what: 'the new lines in the spool',
  });
  ctx.backend.token = undefined;
  return device;
}

test('SIGKILL with readings unacknowledged: the next process resends them, before its own, once acked', async (ctx) => {
  const first = await deviceHolding(ctx, ['old-1', 'old-2', 'old-3']);
  first.signal('SIGKILL');
  assert.is(await first.waitExit(5000), 'SIGKILL');
  const [oldSession] = hellos(ctx);

  const second = await restartWith(ctx, ['new-1', 'new-2']);
  const { spool } = listening(second)!; // what the start found
  assert.equal([spool.dir, spool.unacknowledged, spool.dropped], [ctx.spool, 3, 0]);
  assert.ok(spool.spoolBytes > 0);
  await waitFor(async () => (await health(second)).readings.unacknowledged === 0, { what: 'all acknowledged' });
  const newSession = hellos(ctx)[1]!;
  assert.ok(newSession && newSession !== oldSession, 'a new session');
  assert.equal(received(ctx).slice(3), [
    `${oldSession}:1:old-1`,
    `${oldSession}:2:old-2`,
    `${oldSession}:3:old-3`,
    `${newSession}:1:new-1`,
    `${newSession}:2:new-2`,
  ]);
  assert.equal(
    ctx.backend.stored.map((r) => r.value),
    ['old-1', 'old-2', 'old-3', 'new-1', 'new-2'],
    'each stored once',
  );
  assert.equal(
    jsonLines(second).filter((line) => line.level >= 40 && /spool/.test(line.msg)),
    [],
    'a SIGKILL between records leaves nothing to skip',
  );
});

test('SIGTERM keeps what is unacknowledged and says how many; the next process sends it', async (ctx) => {
  const first = await deviceHolding(ctx, ['kept-1', 'kept-2']);
  first.signal('SIGTERM');
  assert.is(await first.waitExit(8000), 0);
  const kept = jsonLines(first).find((line) => /kept in the spool/.test(line.msg));
  assert.is(kept?.msg, '2 unacknowledged readings kept in the spool');
  assert.equal([kept?.unacknowledged, kept?.dir], [2, ctx.spool]);
  assert.not.ok(
    jsonLines(first).some((line) => /lost/.test(line.msg)),
    'nothing is reported lost',
  );

  const second = await restartWith(ctx, []);
  await waitFor(async () => (await health(second)).readings.unacknowledged === 0, { what: 'all acknowledged' });
  assert.equal(
    ctx.backend.stored.map((r) => r.value),
    ['kept-1', 'kept-2'],
  );
});

test('a second device service on the same spool directory is refused at start-up, in one line', async (ctx) => {
  const first = await start(ctx);
  await waitFor(() => listening(first), { what: 'the first device listening' });
  const { fatal } = await expectRefusal(
    'device/main.ts',
    {
      env: {
        SERIAL_PATH: ctx.pty.devicePath,
        BACKEND_URL: `http://127.0.0.1:${ctx.backend.port}`,
        DEVICE_SPOOL_DIR: ctx.spool,
      },
    },
    `device: DEVICE_SPOOL_DIR=${ctx.spool} is in use by another device service (pid ${first.pid}): ` +
      'one device service per directory',
  );
  assert.is(fatal?.code, 'ESPOOLINUSE');
  // SIGKILLed, the first leaves its lock behind: a dead process's lock is taken over.
  first.signal('SIGKILL');
  await first.waitExit(5000);
  const next = await start(ctx);
  await waitFor(() => listening(next), { what: 'the next device listening' });
});

test('spool directory removed at run time: made again, later lines stored; unwritable: 503 naming it', async (ctx) => {
  const device = await start(ctx);
  const ready = async () =>
    (await fetch(`${device.url}/api/ready`)).json() as Promise<{ checks: Record<string, string> }>;
  await waitFor(
    async () => (await ready()).checks.backend === 'connected' && (await ready()).checks.serial === 'connected',
    {
      what: 'the device ready',
    },
  );
  ctx.pty.write('before\n');
  await waitFor(() => ctx.backend.stored.length === 1, { what: 'the first line stored' });
  rmSync(ctx.spool, { recursive: true });
  ctx.pty.write('after-1\nafter-2\n');
  await waitFor(() => ctx.backend.stored.length === 3, { what: 'the lines after the removal stored' });
  assert.ok(existsSync(ctx.spool), 'the directory is back');
  assert.is((await ready()).checks.spool, 'writable');

  // Where it cannot be made again (a file in its place), readiness says so, and the log names the cause once.
  rmSync(ctx.spool, { recursive: true });
  writeFileSync(ctx.spool, '');
  ctx.pty.write('lost-1\nlost-2\nlost-3\n');
  const res = await waitFor(
    async () => {
      const r = await fetch(`${device.url}/api/ready`);
      return r.status === 503 ? r : undefined;
    },
    { what: 'readiness 503' },
  );
  assert.is(((await res.json()) as { checks: Record<string, string> }).checks.spool, 'unwritable');
  await waitFor(async () => (await health(device)).readings.unwritten === 3, { what: 'three lines counted unwritten' });
  assert.is((await health(device)).readings.dropped, 0, 'not "dropped (spool full)"');
  const warnings = jsonLines(device).filter((line) => /could not write/.test(line.msg));
  assert.equal(
    warnings.map((w) => [w.level, w.code]),
    [[40, 'ENOTDIR']],
    'one warning, the rest summed',
  );
  rmSync(ctx.spool);
  ctx.pty.write('back\n');
  await waitFor(async () => (await ready()).checks.spool === 'writable', { what: 'writable again' });
  await waitFor(() => ctx.backend.stored.length === 4, { what: 'the line after stored' });
  assert.equal(
    ctx.backend.stored.map((r) => r.value),
    ['before', 'after-1', 'after-2', 'back'],
  );
});

test.run();
